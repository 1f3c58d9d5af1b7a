#!/usr/bin/env bash
# Who may read and who may erase, tried as other users over real mounts:
#  - root mounts with allow_other: another user reads as the modes say, but
#    erasing (rm rows/ID, writing .ingot/erase) is EACCES; a member of
#    -o erase_group may erase; the owner may; the audit log names who asked
#  - a user without write permission on a table gets a clear error from
#    `ingot erase` and nothing changes
#  - an unprivileged user mounts their own table through fusermount3, reads,
#    erases and unmounts; -o allow_other without user_allow_other in
#    /etc/fuse.conf fails with a message saying what to change
# Needs root (to make the users); SKIP lines otherwise.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then skip permissions "not root: cannot make test users"; exit 0; fi
if ! have_fuse; then skip permissions "no /dev/fuse"; exit 0; fi
command -v setpriv >/dev/null || { skip permissions "setpriv (util-linux) not installed"; exit 0; }
U=ingot-test-user G=ingot-test-erase
getent group "$G" >/dev/null || groupadd "$G" || { skip permissions "groupadd failed"; exit 0; }
id "$U" >/dev/null 2>&1 || useradd -M -s /bin/sh "$U" || { skip permissions "useradd failed"; exit 0; }
UID_U=$(id -u "$U") GID_U=$(id -g "$U") GID_G=$(getent group "$G" | cut -d: -f3)
# run as the test user, with or without the erase group as a supplementary group
as_user() { setpriv --reuid "$UID_U" --regid "$GID_U" --clear-groups --reset-env -- "$@"; }
as_member() { setpriv --reuid "$UID_U" --regid "$GID_U" --groups "$GID_G" --reset-env -- "$@"; }

chmod 755 "$WORK"
seq 0 99 | sed '1i id' >"$WORK/p.csv"
"$INGOT" import "$WORK/p.csv" "$WORK/t" >/dev/null || { fail permissions_import; exit 0; }
mkdir -p "$WORK/m"
"$INGOT" mount -o allow_other,erase_group="$G" "$WORK/t" "$WORK/m" || { fail permissions_mount; exit 0; }

others_read() {
    as_user cat "$WORK/m/columns/id" | grep -qx 42 || return 1
    as_user cat "$WORK/m/rows/7" | grep -q '"id":7' || return 1
    # rows/ is the owner's and the erase group's to write, .ingot/erase too
    [ "$(stat -c '%a %g' "$WORK/m/rows")" = "775 $GID_G" ] || { stat -c '%a %g' "$WORK/m/rows"; return 1; }
    [ "$(stat -c '%a' "$WORK/m/.ingot/erase")" = 220 ] || return 1
}
check other_users_read_as_modes_say others_read

others_cannot_erase() {
    local out
    out=$(as_user rm "$WORK/m/rows/5" 2>&1) && { echo "rm succeeded"; return 1; }
    grep -q "Permission denied" <<<"$out" || { echo "$out"; return 1; }
    out=$(as_user sh -c "echo 6 > '$WORK/m/.ingot/erase'" 2>&1) && { echo "write succeeded"; return 1; }
    grep -q "Permission denied" <<<"$out" || { echo "$out"; return 1; }
    # and nothing was erased
    [ -e "$WORK/m/rows/5" ] && [ -e "$WORK/m/rows/6" ] && [ "$(jq .erased_rows "$WORK/m/schema.json")" = 0 ]
}
check others_cannot_erase_EACCES others_cannot_erase

group_and_owner_erase() {
    as_member rm "$WORK/m/rows/5" || return 1
    as_member sh -c "echo 6 > '$WORK/m/.ingot/erase'" || return 1
    rm "$WORK/m/rows/8" || return 1 # the owner (root here)
    [ ! -e "$WORK/m/rows/5" ] && [ ! -e "$WORK/m/rows/6" ] && [ ! -e "$WORK/m/rows/8" ] || return 1
    # the audit log says who asked, never a value
    grep -q "origin=mount .* uid=$UID_U pid=[0-9]" "$WORK/t/.ingot/erasures" || { cat "$WORK/t/.ingot/erasures"; return 1; }
    grep -q "origin=mount .* uid=0 " "$WORK/t/.ingot/erasures"
}
check erase_group_and_owner_may_erase group_and_owner_erase

# a column written, renamed or removed through the mount follows the erase rules
columns_by_erase_rules() {
    local out
    out=$(as_user /usr/bin/python3 -c "import numpy as np; np.save('$WORK/m/columns/u.npy', np.arange(97, dtype=np.int32))" 2>&1) &&
        { echo "another user added a column"; return 1; }
    grep -q "Permission denied" <<<"$out" || { echo "$out"; return 1; }
    out=$(as_user rm "$WORK/m/columns/id" 2>&1) && { echo "another user dropped a column"; return 1; }
    grep -q "Permission denied" <<<"$out" || { echo "$out"; return 1; }
    out=$(as_user mv "$WORK/m/columns/id" "$WORK/m/columns/ident" 2>&1) && { echo "another user renamed a column"; return 1; }
    grep -q "Permission denied" <<<"$out" || { echo "$out"; return 1; }
    [ "$(stat -c '%a %g' "$WORK/m/columns")" = "775 $GID_G" ] || { stat -c '%a %g' "$WORK/m/columns"; return 1; }
    [ "$(stat -c '%a' "$WORK/m/columns/id.npy")" = 664 ] || { stat -c '%a' "$WORK/m/columns/id.npy"; return 1; }
    # a member of the erase group may; readers see the column at their next open
    as_member /usr/bin/python3 -c "import numpy as np; np.save('$WORK/m/columns/m.npy', np.arange(97, dtype=np.int32))" || return 1
    as_user cat "$WORK/m/columns/m" | grep -qx 96 || return 1
    as_member mv "$WORK/m/columns/m.npy" "$WORK/m/columns/m2.npy" || return 1
    as_user cat "$WORK/m/columns/m2" | grep -qx 96 || return 1
    # an exchange (renameat2) of two columns' names: the same rule
    xchg="import ctypes, os, sys; l = ctypes.CDLL(None, use_errno=True)
r = l.renameat2(-100, b'$WORK/m/columns/m2', -100, b'$WORK/m/columns/id', 2)
sys.exit(os.strerror(ctypes.get_errno()) if r else 0)"
    out=$(as_user /usr/bin/python3 -c "$xchg" 2>&1) && { echo "another user exchanged two columns"; return 1; }
    grep -q "Permission denied" <<<"$out" || { echo "$out"; return 1; }
    as_member /usr/bin/python3 -c "$xchg" || return 1
    as_user cat "$WORK/m/columns/m2" | grep -qx 99 || { echo "not exchanged"; return 1; } # id's values: m2's stop at 96
    as_member /usr/bin/python3 -c "$xchg" || return 1
    as_member rm "$WORK/m/columns/m2" || return 1
    [ ! -e "$WORK/m/columns/m" ] && [ ! -e "$WORK/m/columns/m2" ] && "$INGOT" versions "$WORK/t" | grep -q "drop-column m2"
}
check columns_written_by_erase_rules columns_by_erase_rules

# versions/N/: another user reads an older version as the modes say; nobody,
# not even the erase group, changes anything through it
others_read_versions() {
    local out
    as_user ls "$WORK/m/versions" | grep -qx 1 || return 1
    as_user cat "$WORK/m/versions/1/rows/7" | grep -q '"id":7' || return 1
    [ "$(stat -c '%a' "$WORK/m/versions/1/rows")" = 555 ] || { stat -c '%a' "$WORK/m/versions/1/rows"; return 1; }
    out=$(as_member rm "$WORK/m/versions/1/rows/7" 2>&1) && { echo "rm in versions/1 succeeded"; return 1; }
    grep -q "Permission denied\|Read-only" <<<"$out" || { echo "$out"; return 1; }
    # rows erased since version 1 are gone from it too
    [ ! -e "$WORK/m/versions/1/rows/5" ] && ! as_user grep -qx 8 "$WORK/m/versions/1/columns/id"
}
check other_users_read_versions_read_only others_read_versions
fusermount3 -u "$WORK/m"

cli_needs_write() {
    local out
    out=$(as_user "$INGOT" erase --row 9 "$WORK/t" 2>&1) && { echo "erase succeeded"; return 1; }
    grep -q "no write permission" <<<"$out" || { echo "$out"; return 1; }
    "$INGOT" cat "$WORK/t" id | grep -qx 9
}
check cli_erase_needs_write_permission cli_needs_write

# A writer killed in the middle of a change of columns leaves its record; a
# user who may not write (so cannot settle it) reads the table as its
# MANIFEST says, the version before the change, and verify names the record;
# the next writer settles it. A damaged record stops every writer with a
# message that says so (no writer waits on itself) while readers read on.
interrupted_change_read() {
    local c=$WORK/ic out
    rm -rf "$c" && cp -r "$WORK/t" "$c" && chmod -R a+rX "$c" || return 1
    printf 'id,w\n1,5\n' >"$WORK/ic.csv"
    INGOT_FAULT_AFTER=2 "$INGOT" add-column --key id "$c" "$WORK/ic.csv" >/dev/null 2>&1
    [ -e "$c/.ingot/commit" ] || { echo "no record left"; return 1; }
    chmod -R a+rX "$c"
    [ "$(as_user "$INGOT" cat --rows 7 "$c")" = '{"id":7}' ] || { as_user "$INGOT" cat --rows 7 "$c"; return 1; }
    out=$(as_user "$INGOT" verify "$c" 2>&1) && { echo "$out"; return 1; }
    grep -q "a change of columns (version [0-9]*) a writer did not finish" <<<"$out" || { echo "$out"; return 1; }
    # the owner's erase settles it under its own lock (it once waited on itself)
    timeout 30 "$INGOT" erase --row 20 "$c" >/dev/null || { echo "erase after the kill: $?"; return 1; }
    [ ! -e "$c/.ingot/commit" ] && [ -z "$("$INGOT" cat --rows 20 "$c")" ] || { echo "record left or row 20 kept"; return 1; }
    "$INGOT" verify "$c" >/dev/null || return 1
    # damaged: readers read, writers stop naming it
    printf 'ingot-commit 1\nversion 2\nend 0\n' >"$c/.ingot/commit"
    [ "$("$INGOT" cat --rows 7 "$c")" = '{"id":7}' ] || return 1
    local w
    for w in "import --append $WORK/p.csv" "erase --row 3" "gc --keep 1" "tag $c v" "add-column --key id $c $WORK/ic.csv"; do
        # shellcheck disable=SC2086
        set -- $w
        if [ "$1" = tag ] || [ "$1" = add-column ]; then out=$(timeout 30 "$INGOT" $w 2>&1); else out=$(timeout 30 "$INGOT" $w "$c" 2>&1); fi
        [ $? = 2 ] && grep -q "ic/.ingot/commit: damaged (its hash does not match): the record of a change of columns" <<<"$out" ||
            { echo "$w: $out"; return 1; }
    done
    out=$("$INGOT" verify "$c" 2>&1) && { echo "$out"; return 1; }
    grep -q "damaged (its hash does not match)" <<<"$out" || { echo "$out"; return 1; }
}
check interrupted_change_read_by_others interrupted_change_read

# an unprivileged user's own mount, through fusermount3. Debian makes /dev/fuse
# world read-write (users' mounts need it); a sandbox may not: then open it for
# this test and put the mode back afterwards.
fuse_mode=$(stat -c %a /dev/fuse)
if [ "$fuse_mode" != 666 ]; then
    chmod 666 /dev/fuse
    trap 'chmod "$fuse_mode" /dev/fuse; cleanup' EXIT
fi
mkdir -p "$WORK/u/m"
cp -r "$WORK/t" "$WORK/u/t"
chown -R "$U" "$WORK/u"
if ! out=$(as_user "$INGOT" mount "$WORK/u/t" "$WORK/u/m" 2>&1); then
    # some sandboxes forbid setuid helpers (no_new_privs): nothing ingot can change
    if grep -qi "fusermount\|permitted\|mount failed" <<<"$out"; then
        skip unprivileged_mount "fusermount3 cannot mount for users here: $out"
    else
        fail unprivileged_mount "$out"
    fi
else
    user_mount() {
        as_user cat "$WORK/u/m/columns/id" | grep -qx 42 || return 1
        as_user rm "$WORK/u/m/rows/42" || return 1
        ! as_user cat "$WORK/u/m/columns/id" | grep -qx 42
    }
    check unprivileged_mount_reads_and_erases user_mount
    as_user fusermount3 -u "$WORK/u/m"
    check unprivileged_unmount bash -c "! findmnt -rn '$WORK/u/m' >/dev/null"
fi

allow_other_needs_conf() {
    local out
    out=$(as_user "$INGOT" mount -o allow_other "$WORK/u/t" "$WORK/u/m" 2>&1) && {
        as_user fusermount3 -u "$WORK/u/m"
        echo "mounted"
        return 1
    }
    grep -q "user_allow_other" <<<"$out" && grep -q "/etc/fuse.conf" <<<"$out" || { echo "$out"; return 1; }
}
if grep -qE '^\s*user_allow_other' /etc/fuse.conf 2>/dev/null; then
    skip allow_other_needs_user_allow_other "this machine's /etc/fuse.conf allows it"
else
    check allow_other_needs_user_allow_other allow_other_needs_conf
fi
