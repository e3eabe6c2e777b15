#!/usr/bin/env bash
# The long versions of the abuse suite (not run in CI): 500 slowloris connections at one byte
# per second against the default 10 s header timeout, a 5 s unread flood, a burst of 64 clients
# pipelining 20,000 requests each, and a 10-minute soak.
# Prints each case's figures.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 20000 2>/dev/null || true
CANNED_LONG=1 cargo test --release --test suite abuse:: -- --nocapture --test-threads 1 2>&1 |
    grep -E "(slowloris|idle herd|burst|flood|resets|fd exhaustion|shutdown under load|soak):|test result|panicked"
