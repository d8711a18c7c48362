# shellcheck shell=bash
# Shared by .ci/test.sh and .ci/device.sh (sourced).

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
