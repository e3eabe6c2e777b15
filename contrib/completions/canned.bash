# bash completion for canned, generated from its option table (README, Options).
_canned() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    case "$prev" in
        --body-file|--raw-response)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --mutate-id)
            COMPREPLY=($(compgen -W "cl-too-long cl-too-short cl-missing cl-duplicate-same cl-duplicate-conflicting cl-list-conflicting cl-negative cl-plus-sign cl-overflow-u64 cl-overflow-i64 cl-hex cl-empty cl-space-inside chunk-size-not-hex chunk-size-overflow chunk-size-negative chunk-size-too-long chunk-size-too-short chunk-size-space-after chunk-missing-last chunk-last-no-final-crlf chunk-data-no-crlf chunk-ext-valid chunk-ext-malformed chunk-ext-64kib chunk-trailer-valid chunk-trailer-content-length chunk-trailer-no-colon chunk-bare-lf te-and-cl te-cl-first te-chunked-twice te-unknown te-in-http10 te-space-before-colon header-no-colon header-space-before-colon header-empty-name header-name-space header-obs-fold header-fold-first-line header-bare-lf header-bare-cr header-mixed-line-ends header-line-64kib headers-10000 header-value-nul header-value-ctl head-no-end status-http12 status-http2 status-lowercase-version status-two-digits status-four-digits status-letters status-999 status-no-reason-no-space status-reason-ctl status-reason-nul status-leading-space status-missing empty-response 1xx-100-then-200 1xx-103-then-200 1xx-several 1xx-1000 1xx-only 1xx-with-body 101-unasked 204-with-body 204-with-body-no-length 304-with-body head-with-body nul-before-status nul-line-in-head two-responses ce-gzip-valid ce-deflate-valid ce-gzip-not-gzip ce-deflate-not-deflate ce-deflate-raw ce-gzip-truncated ce-deflate-truncated ce-gzip-bad-crc ce-gzip-bad-isize ce-deflate-bad-adler ce-gzip-twice ce-deflate-twice" -- "$cur"))
            return ;;
        --listen|--port|--workers|--backlog|--max-conns|--body|--status|--content-type|--header|--route|--health|--server|--etag|--max-requests|--max-head-bytes|--max-headers|--max-body-bytes|--methods|--header-timeout|--idle-timeout|--write-timeout|--shutdown-timeout|--delay|--stats|--metrics|--echo|--journal|--journal-path|--fault|--seed|--admin)
            return ;;
    esac
    COMPREPLY=($(compgen -W "--listen --port --reuse-port --workers --backlog --max-conns --body --body-file --status --content-type --header --route --health --server --no-date --no-http2 --grpc-health --no-validators --etag --raw-response --raw-close --max-requests --max-head-bytes --max-headers --max-body-bytes --methods --header-timeout --idle-timeout --write-timeout --shutdown-timeout --delay --access-log --stats --metrics --echo --journal --journal-path --control --fault --seed --admin --mutate --mutate-id --quiet --mutate-list --help -h --version -V" -- "$cur"))
}
complete -F _canned canned
