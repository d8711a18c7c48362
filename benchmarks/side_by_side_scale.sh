#!/usr/bin/env bash
# Cost as work grows, side by side with apache/tvm-ffi:
# benchmarks/side_by_side_scale.cc built once against our headers and
# libtvmffi and once against upstream's headers and libtvm_ffi (the same
# inputs as side_by_side.sh), then run alternately ROUNDS times, each pinned to
# one core; for every case and size the fastest op over all rounds is kept.
# Printed per case and size: ns per op for ours and upstream, ours/upstream,
# and each side's growth exponent from the previous size
# (log(t2 / t1) / log(n2 / n1): 1 is linear, 0 flat).
#
# Environment:
#   UPSTREAM_SRC  upstream's source tree (headers in include/, DLPack in
#                 3rdparty/dlpack/include)            -- required
#   UPSTREAM_LIB  the folder holding upstream's libtvm_ffi.so -- required
#   OUR_LIB       the folder holding our libtvmffi.so (default: build/runtime)
#   CXX           compiler (default: g++); CXXFLAGS (default: -O2 -DNDEBUG)
#   ROUNDS        alternating rounds (default 3); CPU: the core (default 1)
#   CASES         space-separated subset of cases (default: all)
#   CALLGRIND=1   also count instructions per op (valgrind callgrind, only
#                 inside the measured function) at sizes up to CG_MAX_SIZE
#                 (default 1000); slow
#   WORK          where the binaries go (default: a fresh temporary folder)
#
# Example:
#   UPSTREAM_SRC=<upstream source> UPSTREAM_LIB=<upstream build>/lib \
#     bash benchmarks/side_by_side_scale.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ROUNDS=${ROUNDS:-3}
CG_MAX_SIZE=${CG_MAX_SIZE:-1000}
# shellcheck source=benchmarks/side_by_side_lib.sh
source "$here/side_by_side_lib.sh"
sbs_build side_by_side_scale.sh "$here/side_by_side_scale.cc"

sides=(ours upstream)
# shellcheck disable=SC2206
cases=(${CASES:-})

declare -A ns ir
keys=()
while read -r c n; do
  if ((${#cases[@]} == 0)) || [[ " ${cases[*]} " == *" $c "* ]]; then keys+=("$c $n"); fi
done < <("$WORK/ours" --list)

# --- wall ---------------------------------------------------------------------
for ((r = 0; r < ROUNDS; ++r)); do
  if ((r % 2 == 0)); then order=(ours upstream); else order=(upstream ours); fi
  for side in "${order[@]}"; do
    echo "round $((r + 1))/$ROUNDS: $side" >&2
    while read -r c n value; do
      old=${ns[$side,$c,$n]:-}
      if [[ -z "$old" ]] || awk -v a="$value" -v b="$old" 'BEGIN { exit !(a < b) }'; then
        ns[$side,$c,$n]=$value
      fi
    done < <("${pin[@]}" "$WORK/$side" --time "${cases[@]}")
  done
done

# --- instructions (optional) ---------------------------------------------------
if [[ "${CALLGRIND:-0}" == 1 ]]; then
  command -v valgrind >/dev/null || { echo "side_by_side_scale.sh: valgrind not found" >&2; exit 1; }
  for key in "${keys[@]}"; do
    read -r c n <<<"$key"
    ((n <= CG_MAX_SIZE)) || continue
    for side in "${sides[@]}"; do
      valgrind --tool=callgrind --callgrind-out-file=/dev/null --collect-atstart=no \
        --toggle-collect=sbs_scale_measured "$WORK/$side" --count "$c" "$n" 1 \
        >"$WORK/cg.out" 2>"$WORK/cg.err"
      total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$WORK/cg.err")
      per=$(sed -n 's/^per_op \([0-9]*\)$/\1/p' "$WORK/cg.out")
      [[ -n "$total" && -n "$per" ]] || { echo "side_by_side_scale.sh: callgrind failed on $side $c $n" >&2; exit 1; }
      ir[$side,$c,$n]=$(awk -v a="$total" -v b="$per" 'BEGIN { printf "%.0f", a / b }')
    done
  done
fi

# --- report -------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "-"; else printf "%.2f", a / b }'; }
growth() {  # t1 t2 n1 n2
  awk -v a="$1" -v b="$2" -v m="$3" -v n="$4" \
    'BEGIN { if (a == "" || b == "" || a <= 0 || m == "") print "-"; else printf "%.2f", log(b / a) / log(n / m) }'
}
echo
echo "ns per op (fastest of $ROUNDS alternating rounds, cpu $CPU); growth: exponent from the previous size"
printf '%-15s %8s | %14s %14s %6s | %6s %6s' case size "ns ours" "ns up" "o/u" "gr o" "gr u"
[[ "${CALLGRIND:-0}" == 1 ]] && printf ' | %12s %12s %6s' "Ir ours" "Ir up" "o/u"
echo
prev_c="" prev_n=""
for key in "${keys[@]}"; do
  read -r c n <<<"$key"
  no=${ns[ours,$c,$n]:-}; nu=${ns[upstream,$c,$n]:-}
  go="-" gu="-"
  if [[ "$c" == "$prev_c" ]]; then
    go=$(growth "${ns[ours,$c,$prev_n]:-}" "$no" "$prev_n" "$n")
    gu=$(growth "${ns[upstream,$c,$prev_n]:-}" "$nu" "$prev_n" "$n")
  fi
  printf '%-15s %8s | %14s %14s %6s | %6s %6s' "$c" "$n" "${no:--}" "${nu:--}" "$(ratio "$no" "$nu")" "$go" "$gu"
  if [[ "${CALLGRIND:-0}" == 1 ]]; then
    io=${ir[ours,$c,$n]:-}; iu=${ir[upstream,$c,$n]:-}
    printf ' | %12s %12s %6s' "${io:--}" "${iu:--}" "$(ratio "$io" "$iu")"
  fi
  echo
  prev_c=$c prev_n=$n
done
