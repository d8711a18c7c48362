# shellcheck shell=bash
# Shared by the .ci scripts (sourced).

# banner TEXT...: a phase heading in the log; with BANNER_T0 set (a $SECONDS
# value), the seconds since then too.
banner() {
  if [[ -n ${BANNER_T0:-} ]]; then
    printf '\n==================== %s (t=%ds) ====================\n' "$*" $((SECONDS - BANNER_T0))
  else
    printf '\n==================== %s ====================\n' "$*"
  fi
}

# junit_counts FILE: print "PASSED FAILED SKIPPED" from the JUnit file that
# `ctest --output-junit FILE` writes, or nothing when the file is missing or
# empty. A test that skipped itself (SKIP_RETURN_CODE / SKIP_REGULAR_EXPRESSION)
# or is disabled counts as skipped; one that could not run (e.g. its executable
# is missing, which JUnit also reports as "notrun") counts as failed, as in
# ctest's own summary.
junit_counts() {
  [[ -s $1 ]] || return 0
  awk '
    function settle() {
      if (pending) failed++
      pending = 0
    }
    /<testcase / {
      settle()
      status = ""
      if (match($0, /status="[a-z]+"/)) status = substr($0, RSTART + 8, RLENGTH - 9)
      if (status == "run") passed++
      else if (status == "fail") failed++
      else if (status == "disabled") skipped++
      else if (status == "notrun") pending = 1
      else failed++
      next
    }
    pending && /<skipped / {
      if ($0 ~ /message="SKIP_(RETURN_CODE|REGULAR_EXPRESSION)/) skipped++
      else failed++
      pending = 0
    }
    END {
      settle()
      printf "%d %d %d\n", passed, failed, skipped
    }' "$1"
}

# unpack_deb DEB DEST: unpack a .deb (dpkg-deb if present, else plain Python),
# for the GPU machine, which has no dpkg.
unpack_deb() { # unpack_deb DEB DEST: dpkg-deb if present, else plain Python.
  if command -v dpkg-deb >/dev/null 2>&1; then
    dpkg-deb -x "$1" "$2"
  else
    python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
deb, dest = sys.argv[1], sys.argv[2]
data = open(deb, "rb").read()
assert data[:8] == b"!<arch>\n", "not an ar archive"
pos = 8
while pos + 60 <= len(data):
    hdr = data[pos:pos + 60]
    name = hdr[:16].decode().strip().rstrip("/")
    size = int(hdr[48:58].decode().strip())
    body = data[pos + 60:pos + 60 + size]
    if name.startswith("data.tar"):
        kw = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}
        with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as tf:
            tf.extractall(dest, **kw)
        break
    pos += 60 + size + (size & 1)
else:
    sys.exit("no data.tar member in " + deb)
PY
  fi
}

# A counted phase (.ci/wheel.sh, torch.sh, clients.sh, upstream.sh): its steps
# tally into passed/failed/skipped and fails[]; finish prints the last line
# .ci/test.sh's run_counted reads ("PHASE: N passed, N failed, N skipped").
# counted_begin PHASE: start one (sets phase, its start time and the tallies).
counted_begin() {
  phase=$1
  phase_start=$SECONDS
  passed=0 failed=0 skipped=0
  fails=()
}

# tally LINE...: count each line by its first word (PASS/FAIL/SKIP), silently
# (for lines a driver already printed); count LINE...: echo them, then tally.
tally() {
  local line
  for line in "$@"; do
    case $line in
      PASS*) passed=$((passed + 1)) ;;
      FAIL*) failed=$((failed + 1)); line=${line#FAIL}; line=${line#:}; fails+=("${line# }") ;;
      SKIP*) skipped=$((skipped + 1)) ;;
    esac
  done
}
count() {
  printf '%s\n' "$@"
  tally "$@"
}

# check NAME COMMAND...: one counted step, passed when COMMAND succeeds.
check() {
  local name=$1
  shift
  echo "--- $name"
  if "$@"; then count "PASS: $name"; else count "FAIL: $name"; fi
}

# finish: the phase's summary, then exit non-zero when anything failed (a
# caller may add to fails[] without a FAIL line, e.g. a suite with no result).
finish() {
  local f
  for f in "${fails[@]}"; do echo "$phase FAILED: $f"; done
  echo "$phase: phase took $((SECONDS - phase_start)) s"
  echo "$phase: $passed passed, $failed failed, $skipped skipped"
  [[ $failed -eq 0 && ${#fails[@]} -eq 0 ]]
  exit
}

# venv_beside BASE_PY VENV: a venv on BASE_PY that sees BASE_PY's packages too:
# --system-site-packages, and, when BASE_PY is itself a venv (the GPU machine's
# torch), a .pth naming that venv's site-packages, which are not "system" ones.
venv_beside() {
  local base=$1 venv=$2 site
  "$base" -m venv --system-site-packages "$venv" || return 1
  if "$base" -c 'import sys; sys.exit(0 if sys.prefix != sys.base_prefix else 1)'; then
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') &&
      "$base" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
        > "$site/tvmffi_base_venv.pth"
  fi
}

# pytest_counts LOG: print "PASSED FAILED SKIPPED" from pytest's last summary
# line in LOG (errors count as failed), or nothing when it has none, e.g.
# "=== 3 failed, 118 passed, 2 skipped, 1 error in 8.1s ===" or, with -q,
# "118 passed in 8.1s".
pytest_counts() {
  local line n p=0 f=0 s=0
  line=$(grep -E '^(=+ )?.*[0-9]+ (passed|failed|skipped|errors?|deselected|no tests ran).* in [0-9.]+s' \
         "$1" | tail -n 1 || true)
  [[ -n $line ]] || return 0
  for n in passed failed skipped error errors; do
    if [[ $line =~ ([0-9]+)\ $n([ ,]|$) ]]; then
      case $n in
        passed) p=${BASH_REMATCH[1]} ;;
        skipped) s=${BASH_REMATCH[1]} ;;
        *) f=$((f + BASH_REMATCH[1])) ;;
      esac
    fi
  done
  echo "$p $f $s"
}

# add_pytest LOG RC: add pytest_counts LOG to the counted phase's tallies; a
# non-zero RC or a log with no summary is a failure too.
add_pytest() {
  local counts p f s
  counts=$(pytest_counts "$1")
  if [[ -n $counts ]]; then
    read -r p f s <<<"$counts"
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  fi
  if [[ -z $counts || $2 -ne 0 ]]; then
    fails+=("pytest (rc=$2)")
    [[ $failed -gt 0 ]] || failed=1
  fi
}
