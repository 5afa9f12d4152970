#!/usr/bin/env bash
# Settings in one place (include/settings.h): an option's default from
# its variable (the applet spec's $VAR), held to the option's range with
# an error naming the variable or the option and the range; the option
# beats the variable; a daemon request changes what a request may change
# (timeout, max_file, max_output) for itself only; lib reads no variable.
. "$(dirname "$0")/lib.sh"
src=$(cd "$(dirname "$0")/.." && pwd)

d=$TEST_TMP/settings
mkdir -p "$d"
cd "$d" || exit 1
trap kill_pids EXIT

# start NAME ARGS...: a daemon on a Unix socket (daemon_start); sets DPID,
# DLOG and SOCK.
start() {
	local name=$1
	shift
	DLOG=$d/$name.log
	SOCK=$d/$name.sock
	daemon_start "$DLOG" --listen off --socket "$SOCK" "$@"
}
stop() {
	daemon_stop
}
raw() { with_timeout 30 "$WICKFS" client --connect "unix:$SOCK" --raw "$@"; }
# A daemon that must not start (ARGS after its own): stdout and status.
refused() {
	local o
	o=$(with_timeout 10 "$WICKFS" daemon --listen off --socket off "$@" 2>/dev/null)
	printf '%s %s' "$o" "$?"
}

# ---- an environment default is applied ----
DAEMON_WORKERS=3 DAEMON_MAX_LINE=5000 start env
check_match settings.env_default "*ready: pid *, 3 workers, max line 5000 bytes*" "$(cat "$DLOG")"
stop
# DAEMON_MAX_MEMORY before its older name DAEMON_MAX_BUFFERED.
DAEMON_MAX_BUFFERED=3000000 DAEMON_MAX_MEMORY=2000000 start alias
check_match settings.env_default_first_of_list "*memory budget 2000000 bytes*" "$(cat "$DLOG")"
stop
DAEMON_MAX_BUFFERED=3000000 start alias2
check_match settings.env_default_second_of_list "*memory budget 3000000 bytes*" "$(cat "$DLOG")"
stop

# ---- out of range: refused, naming the variable or option and the range ----
check settings.env_out_of_range \
	'{"ok":false,"error":"daemon: DAEMON_POLL_US takes 0 to 10000, got 20000"} 1' \
	"$(DAEMON_POLL_US=20000 refused)"
check settings.env_out_of_range_low \
	'{"ok":false,"error":"daemon: DAEMON_WORKERS takes 1 to 256, got 0"} 1' \
	"$(DAEMON_WORKERS=0 refused)"
check settings.env_not_a_number \
	'{"ok":false,"error":"daemon: DAEMON_MAX_LINE needs an integer, got \"10M\""} 1' \
	"$(DAEMON_MAX_LINE=10M refused)"
check settings.option_out_of_range \
	'{"ok":false,"error":"daemon: --workers takes 1 to 256, got 300"} 1' \
	"$(refused --workers 300)"
check settings.option_out_of_range_min_only \
	'{"ok":false,"error":"daemon: --max-memory takes 1048576 or more, got 1000"} 1' \
	"$(refused --max-memory 1000)"
check settings.option_alias_out_of_range \
	'{"ok":false,"error":"daemon: --line-timeout takes 1 to 86400, got 100000"} 1' \
	"$(refused --line-timeout 100000)"

check settings.env_second_of_list_out_of_range \
	'{"ok":false,"error":"daemon: DAEMON_MAX_BUFFERED takes 1048576 or more, got 1000"} 1' \
	"$(DAEMON_MAX_BUFFERED=1000 refused)"

# ---- the option beats the environment, whose value is then not read:
# the same variables refused alone are no matter beside the options ----
alone=$(DAEMON_WORKERS=300 DAEMON_MAX_LINE=6000 refused)
DAEMON_WORKERS=300 DAEMON_MAX_LINE=x start beats --workers 2 --max-line 6000
check_match settings.option_beats_env \
	'{"ok":false,"error":"daemon: DAEMON_WORKERS takes 1 to 256, got 300"} 1|*ready: pid *, 2 workers, max line 6000 bytes*' \
	"$alone|$(cat "$DLOG")"
stop

# ---- a request's settings apply to that request only ----
head -c 100 /dev/zero | tr '\0' a >f100
WICKFS_MAX_FILE=1000 start req --max-output 1000
out=$(raw "{\"id\":\"a\",\"op\":\"read\",\"args\":[\"$d/f100\"],\"max_file\":50}" \
	"{\"id\":\"b\",\"op\":\"read\",\"args\":[\"$d/f100\"]}")
check settings.request_max_file "{\"id\":\"a\",\"ok\":false,\"error\":\"read $d/f100: file is 100 bytes, over the 50-byte limit (WICKFS_MAX_FILE)\"}
{\"id\":\"b\",\"ok\":true,\"data\":\"$(cat f100)\"}" "$out"
# The fast path (cmd `wickfs read`), answered in process, the same.
out=$(raw "{\"id\":\"c\",\"cmd\":\"wickfs read '$d/f100'\",\"max_file\":99}")
check settings.request_max_file_cmd "{\"id\":\"c\",\"stdout\":$(jstr "{\"ok\":false,\"error\":\"read $d/f100: file is 100 bytes, over the 99-byte limit (WICKFS_MAX_FILE)\"}
"),\"stderr\":\"\",\"exit_code\":1}" "$out"
# A request may lower a cap, never raise it past the daemon's own (here
# from WICKFS_MAX_FILE, resolved at the daemon's start).
out=$(raw "{\"id\":\"d\",\"op\":\"read\",\"args\":[\"$d/f100\"],\"max_file\":5000}")
check settings.request_above_daemon \
	'{"id":"d","ok":false,"error":"max_file: takes 1 to 1000 bytes (at most the server'"'"'s own), got 5000"}' "$out"
out=$(raw '{"id":"e","cmd":"printf 0123456789","max_output":4}' \
	'{"id":"f","cmd":"printf 0123456789"}')
check settings.request_max_output '{"id":"e","stdout":"0123","stderr":"","exit_code":0,"stdout_truncated":true}
{"id":"f","stdout":"0123456789","stderr":"","exit_code":0}' "$out"
out=$(raw '{"id":"g","cmd":"true","max_output":"4"}')
check settings.request_not_a_number \
	'{"id":"","stdout":"","stderr":"","exit_code":0,"error":"invalid JSON: field \"max_output\" must be a number of bytes"}' "$out"
# A timeout stays lenient, as the reference: 0 is the default.
out=$(raw '{"id":"h","cmd":"echo t","timeout":0}')
check settings.request_timeout_zero '{"id":"h","stdout":"t\n","stderr":"","exit_code":0}' "$out"
stop

# ---- lib reads no variable: PATH for a child's program is the one kept ----
if [ -d "$src/lib" ]; then
	hits=$(cd "$src" && grep -rn 'getenv *(' lib/ | grep -v '^lib/exec\.c:[0-9]*:.*getenv("PATH")')
	check settings.lib_no_getenv "" "$hits"
	check settings.lib_getenv_path_once 1 "$(cd "$src" && grep -rc 'getenv *(' lib/exec.c)"
else
	skip settings.lib_no_getenv "no source tree beside the test"
fi
