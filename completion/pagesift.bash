# bash completion for the pagesift tools (installed as
# share/bash-completion/completions/<tool> for each tool).  The options are
# read from the tool's own --help, so they are always those of the installed
# version; --method, --format, --options and --favor complete their values
# (from the tool's --method help, --format help and --options help: the
# library's tables; --options the keys of the --method on the line, or
# svm's, after the last comma).
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
        --options|--favor)
            if [[ ${tool##*/} == pagesift ]]; then
                local m=svm i
                for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
                    [[ ${COMP_WORDS[i]} == -m || ${COMP_WORDS[i]} == --method ]] && m=${COMP_WORDS[i+1]}
                done
                local table
                table=$(pagesift --method "$m" --options help 2>/dev/null)
                if [[ $prev == --favor ]]; then
                    COMPREPLY=($(compgen -W "$(sed -n 's/^  favor  *one of \([^()]*\) (.*/\1/p' <<< "$table" |
                        tr -d ,)" -- "$cur"))
                else
                    local pre=
                    [[ $cur == *,* ]] && pre=${cur%,*},
                    COMPREPLY=($(compgen -P "$pre" -S = -W "$(awk 'NR > 1 && /^  [^ ]/ {print $1}' <<< "$table")" \
                        -- "${cur##*,}"))
                    compopt -o nospace 2>/dev/null
                fi
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
