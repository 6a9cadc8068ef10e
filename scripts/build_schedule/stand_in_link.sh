#!/usr/bin/env bash
# Stand-in linker launcher (host targets): creates the output and does nothing else.
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do [[ "${args[$i]}" == "-o" ]] && out=${args[$((i + 1))]}; done
mkdir -p "$(dirname "$out")"
touch "$out"
