# shellcheck shell=bash
# Shared by .ci/test.sh and .ci/device.sh (sourced).

# ctest_counts LOG: print "PASSED FAILED SKIPPED" from a ctest log, or nothing
# when it has no summary line. Understands both ctest summary forms:
# "100% tests passed, 0 tests failed out of 37" and "100% tests passed out of 37".
ctest_counts() {
  local line total failed skipped
  line=$(grep -E '[0-9]+% tests passed(, [0-9]+ tests? failed)? out of [0-9]+' "$1" | tail -n 1 || true)
  [[ -n $line ]] || return 0
  total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  failed=0
  if [[ $line =~ ([0-9]+)\ tests?\ failed ]]; then failed=${BASH_REMATCH[1]}; fi
  skipped=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)' "$1" || true)
  echo "$((total - failed - skipped)) $failed $skipped"
}
