# bash completion for ingot: subcommands, their options, table directories,
# and column names (asked of the table: ingot inspect --columns, footer only).
_ingot_columns() { # TABLE
    [ -f "$1/MANIFEST" ] && ingot inspect --columns "$1" 2>/dev/null
}

_ingot() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local cmds="import inspect cat verify erase add-column replace-column update drop-column rename-column move-column restore-columns versions tag gc mount umount help"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$cmds --version" -- "$cur"))
        return
    fi
    local cmd=${COMP_WORDS[1]} opts=""
    case $cmd in
    import) opts="--format --schema --append --rows-per-group --page-size --part-size --delimiter --sample-rows --threads -j --json --help" ;;
    inspect) opts="--json --columns --help" ;;
    cat) opts="--group --rows --rows-from --version --help" ;;
    verify) opts="--deep --cold --json --help" ;;
    erase) opts="--row --rows-from --where --json --help" ;;
    add-column) opts="--name --key --schema --format --delimiter --require-all --ignore-missing --first --after --json --help" ;;
    replace-column) opts="--name --key --schema --format --delimiter --require-all --ignore-missing --retype --json --help" ;;
    update) opts="--column --from --key --schema --format --delimiter --ignore-missing --json --help" ;;
    drop-column | rename-column | restore-columns) opts="--json --help" ;;
    move-column) opts="--first --after --json --help" ;;
    versions) opts="--json --help" ;;
    tag) opts="--help" ;;
    gc) opts="--keep --older-than --dry-run --json --help" ;;
    mount) opts="-f -d -o --version --tag --help" ;;
    help) COMPREPLY=($(compgen -W "$cmds" -- "$cur")); return ;;
    esac
    case $prev in
    --format) COMPREPLY=($(compgen -W "csv jsonl npy parquet" -- "$cur")); return ;;
    --schema | --rows-from) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    -o) COMPREPLY=($(compgen -W "allow_other erase_group= cache_mb= threads= spin_us= readahead_kb=" -- "$cur")); return ;;
    --from) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --group | --rows | --row | --rows-per-group | --page-size | --part-size | --delimiter | --sample-rows | --threads | -j | --keep | --older-than | --version | --tag | --name | --key) return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    # the first word that is a table directory; after it, column names
    local i table=""
    for ((i = 2; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i - 1]} in --group | --rows | --row | --rows-from | --where | --format | --schema | -o) continue ;; esac
        [ -f "${COMP_WORDS[i]}/MANIFEST" ] && { table=${COMP_WORDS[i]}; break; }
    done
    if [ -n "$table" ] && { [ "$cmd" = cat ] || [ "$cmd" = drop-column ] || [ "$cmd" = rename-column ] || [ "$cmd" = move-column ] || [ "$prev" = --column ] || [ "$prev" = --after ]; }; then
        COMPREPLY=($(compgen -W "$(_ingot_columns "$table")" -- "$cur"))
        return
    fi
    if [ "$prev" = --where ] && [ -n "$table" ]; then
        COMPREPLY=($(compgen -W "$(_ingot_columns "$table" | sed 's/$/=/')" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -d -- "$cur"))
    case $cmd in import | add-column | replace-column) COMPREPLY+=($(compgen -f -- "$cur")) ;; esac
    return 0
}
complete -F _ingot ingot
