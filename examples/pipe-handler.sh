#!/bin/sh
# A `qctl consume --pipe` handler in shell: one JSON job per line in, one answer per job out.
# jq takes the job apart; the data is passed on as an argument, never evaluated.
while IFS= read -r job; do
  id=$(printf '%s\n' "$job" | jq -r .id)
  data=$(printf '%s\n' "$job" | jq -r '.data // .data_b64')
  if printf '%s' "$data" | wc -c >&2; then # the work goes here; its output to stderr
    jq -cn --arg id "$id" '{id: $id, ok: true}'
  else
    jq -cn --arg id "$id" --arg e "wc failed" '{id: $id, ok: false, error: $e}'
  fi
done
