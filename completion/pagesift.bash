# bash completion for the pagesift tools (installed as
# share/bash-completion/completions/<tool> for each tool).  The options are
# read from the tool's own --help, so they are always those of the installed
# version; --method and --format complete their values (from the tool's
# --method help and --format help: the library's tables).
_pagesift_tools()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -s || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
    fi
    local tool=${COMP_WORDS[0]}
    case $prev in
        -m|--method)
            if [[ ${tool##*/} == pagesift || ${tool##*/} == pagesift-eval ]]; then
                COMPREPLY=($(compgen -W "$(pagesift --method help 2>/dev/null |
                    awk 'NR > 1 {print $1}') help" -- "$cur"))
                return
            fi ;;
        -f|--format)
            if [[ ${tool##*/} == pagesift ]]; then
                COMPREPLY=($(compgen -W "$(pagesift --format help 2>/dev/null |
                    awk 'NR > 1 && /^  [^ ]/ {print $1}') help" -- "$cur"))
                return
            fi ;;
        --site-rule)
            COMPREPLY=($(compgen -W "host host+path1" -- "$cur"))
            return ;;
    esac
    if [[ ${tool##*/} == pagesift-template && $COMP_CWORD -eq 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "build show match eval" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$tool" --help 2>/dev/null |
            grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}
complete -F _pagesift_tools pagesift pagesift-dump pagesift-inputs pagesift-template \
    pagesift-features pagesift-train pagesift-classify pagesift-eval pagesift-annotate
