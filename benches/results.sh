# Result files (sourced, not run): a script that measures figures the docs quote writes them
# to docs/results/NAME.md (or under $RESULTS_DIR), headed by the command, the machine and the
# date, one figure a row. The pages quote figures only from these files; tests/suite/figures.rs fails
# when a page quotes a figure its result file does not hold.
#
#   results_begin NAME 'COMMAND'       # starts docs/results/NAME.md (overwritten)
#   result 'WHAT' VALUE                # one row; VALUE as the page writes it (988,328 bytes)
#   results_text 'LINE'                # a line of text (a note; benches/record: what was printed)
#   results_end                        # says where it was written

results_begin() { # name command
    local dir="${RESULTS_DIR:-docs/results}" cpu
    mkdir -p "$dir"
    results_file="$dir/$1.md"
    cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)"
    {
        echo "# $1"
        echo
        echo "Written by \`$2\` on $(uname -sr) $(uname -m), $(nproc) CPUs (${cpu:-CPU not named})," \
            "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
        echo "Do not edit: run the command again."
    } >"$results_file"
    results_rows=""
}

result() { # what value
    if [ -z "$results_rows" ]; then
        printf '\n| figure | value |\n|---|---:|\n' >>"$results_file"
        results_rows=1
    fi
    echo "| $1 | $2 |" >>"$results_file"
}

results_text() { # line
    echo "$1" >>"$results_file"
}

results_end() {
    echo "results: $results_file"
}

# thousands 988328 -> 988,328
thousands() {
    echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|[^0-9]\)/\1,\2\3/' -e 'ta'
}
