#!/usr/bin/env bash
# Side by side with apache/tvm-ffi: benchmarks/side_by_side.cc built once
# against our headers and libtvmffi and once against upstream's headers and
# libtvm_ffi, then measured two ways in one run:
#   (a) instructions per iteration, from valgrind callgrind (deterministic:
#       the same case run N1 and N2 times, the difference divided by N2 - N1);
#   (b) wall ns per iteration, both binaries run alternately ROUNDS times,
#       pinned to one core with taskset; the best of all rounds is kept.
# Each case is printed with ours / upstream and its ratio to the floor (a
# plain C function-pointer call) of the same side.
#
# Environment:
#   UPSTREAM_SRC  upstream's source tree (headers in include/, DLPack in
#                 3rdparty/dlpack/include)            -- required
#   UPSTREAM_LIB  the folder holding upstream's libtvm_ffi.so -- required
#   OUR_LIB       the folder holding our libtvmffi.so and its libtvm_ffi.so link
#                 (default: build/runtime)
#   CXX           compiler (default: g++); CXXFLAGS (default: -O2 -DNDEBUG)
#   ROUNDS        wall rounds per side (default 7); CPU: the core (default 1)
#   N1, N2        callgrind iteration counts (default 2000, 12000; the
#                 throw cases, ~10^4 instructions each, a tenth of them)
#   CASES         space-separated subset of cases (default: all)
#   SKIP_CALLGRIND=1 / SKIP_WALL=1   leave out (a) / (b)
#   WORK          where the binaries go (default: a fresh temporary folder)
#
# Example:
#   UPSTREAM_SRC=<upstream source> UPSTREAM_LIB=<upstream build>/lib \
#     bash benchmarks/side_by_side.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ROUNDS=${ROUNDS:-7}
N1=${N1:-2000}
N2=${N2:-12000}
# shellcheck source=benchmarks/side_by_side_lib.sh
source "$here/side_by_side_lib.sh"
sbs_build side_by_side.sh "$here/side_by_side.cc"

sides=(ours upstream)
cases=${CASES:-$("$WORK/ours" --list | grep -vx floor | tr '\n' ' ')}

declare -A ir ns
# --- (a) instructions -------------------------------------------------------
collected() {  # binary case n -> total instructions of the run
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" --count "$2" "$3" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
if [[ "${SKIP_CALLGRIND:-0}" != 1 ]]; then
  command -v valgrind >/dev/null || { echo "side_by_side.sh: valgrind not found" >&2; exit 1; }
  for side in "${sides[@]}"; do
    for c in floor $cases; do
      [[ -n "${ir[$side,$c]:-}" ]] && continue
      n1=$N1 n2=$N2
      [[ "$c" == Throw* ]] && { n1=$((N1 / 10)); n2=$((N2 / 10)); }
      a=$(collected "$WORK/$side" "$c" "$n1")
      b=$(collected "$WORK/$side" "$c" "$n2")
      [[ -n "$a" && -n "$b" ]] || { echo "side_by_side.sh: callgrind failed on $side $c" >&2; exit 1; }
      ir[$side,$c]=$(awk -v a="$a" -v b="$b" -v n="$((n2 - n1))" 'BEGIN { printf "%.1f", (b - a) / n }')
    done
  done
fi

# --- (b) wall ----------------------------------------------------------------
if [[ "${SKIP_WALL:-0}" != 1 ]]; then
  for ((r = 0; r < ROUNDS; ++r)); do
    # Alternate which side goes first.
    if ((r % 2 == 0)); then order=(ours upstream); else order=(upstream ours); fi
    for side in "${order[@]}"; do
      while read -r name value; do
        old=${ns[$side,$name]:-}
        if [[ -z "$old" ]] || awk -v a="$value" -v b="$old" 'BEGIN { exit !(a < b) }'; then
          ns[$side,$name]=$value
        fi
      done < <("${pin[@]}" "$WORK/$side" --time)
    done
  done
fi

# --- report ------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
echo
echo "instructions per iteration (callgrind, N=$N1..$N2) and wall ns (best of $ROUNDS alternating rounds, cpu $CPU)"
printf '%-30s | %8s %8s %6s %6s %6s | %7s %7s %6s %6s %6s\n' case \
  "Ir ours" "Ir up" "o/u" "o/flr" "u/flr" "ns ours" "ns up" "o/u" "o/flr" "u/flr"
for c in floor $cases; do
  io=${ir[ours,$c]:-}; iu=${ir[upstream,$c]:-}
  no=${ns[ours,$c]:-}; nu=${ns[upstream,$c]:-}
  printf '%-30s | %8s %8s %6s %6s %6s | %7s %7s %6s %6s %6s\n' "$c" \
    "${io:--}" "${iu:--}" "$(ratio "$io" "$iu")" "$(ratio "$io" "${ir[ours,floor]:-}")" \
    "$(ratio "$iu" "${ir[upstream,floor]:-}")" \
    "${no:--}" "${nu:--}" "$(ratio "$no" "$nu")" "$(ratio "$no" "${ns[ours,floor]:-}")" \
    "$(ratio "$nu" "${ns[upstream,floor]:-}")"
done
