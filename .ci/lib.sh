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
