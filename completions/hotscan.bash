# bash completion for hotscan. The options come from `hotscan <command> --help` and the
# rule ids from `hotscan rules`, so the completion follows the binary it completes.
_hotscan_options() { # command
    # The option lines of the help: "  -p, --compile-commands FILE", "  --hot FUNC".
    "${COMP_WORDS[0]}" "$1" --help 2>/dev/null | grep -oE -- '^ +(-[a-z], )?--?[a-z][a-z-]*' |
        tr ',' '\n' | tr -d ' ' | sort -u
}

_hotscan_rules() {
    "${COMP_WORDS[0]}" rules 2>/dev/null | sed -n '/^Rules:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p'
}

_hotscan() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local commands="scan config apply rules validate calibrate"
    local cmd=scan i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        scan | config | apply | rules | validate | calibrate) cmd=${COMP_WORDS[i]}; break ;;
        --) return 0 ;; # compiler flags follow
        esac
    done
    COMPREPLY=()
    case $prev in
    --format)
        local formats="text json sarif"
        [[ $cmd == rules ]] && formats="text json"
        mapfile -t COMPREPLY < <(compgen -W "$formats" -- "$cur"); return ;;
    --measure) mapfile -t COMPREPLY < <(compgen -W "wall cpu" -- "$cur"); return ;;
    --targets) mapfile -t COMPREPLY < <(compgen -W "x86_64 aarch64 x86_64,aarch64" -- "$cur"); return ;;
    --header-tus) mapfile -t COMPREPLY < <(compgen -W "all" -- "$cur"); return ;;
    --color) mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur"); return ;;
    --min-confidence) mapfile -t COMPREPLY < <(compgen -W "low medium high" -- "$cur"); return ;;
    --fix-level) mapfile -t COMPREPLY < <(compgen -W "safe aggressive" -- "$cur"); return ;;
    --enable | --disable) mapfile -t COMPREPLY < <(compgen -W "$(_hotscan_rules)" -- "$cur"); return ;;
    -p | --compile-commands | --rules | --root | --facts-dir)
        mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
    -o | --output | --patch | --findings | --calibration | --export-fixes | --baseline | --config)
        mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
    --build | --bench | --metric | --runs | --warmup | --alpha | --build-timeout | --bench-timeout | --compiler | --repeat)
        return ;;
    --hot | --exclude | --extra-arg | --extra-arg-before | --diff-base | --docs-url | -j | --jobs | --tu-timeout | --tu-memory)
        return ;;
    esac
    if [[ $COMP_CWORD -eq 1 && $cur != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        local help=$cmd
        [[ $cmd == config ]] && help=scan
        mapfile -t COMPREPLY < <(compgen -W "$(_hotscan_options "$help") $([[ $cmd == config ]] && echo --dump)" -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _hotscan hotscan
