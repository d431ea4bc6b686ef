# Sourced by the suite's bash scripts right after `set -euo pipefail`: a command that stops a
# script names the script, its line, its status and itself on stderr, so no script ends with a
# bare exit 1. -E carries the trap into functions, subshells and command substitutions.
set -E
trap 'loud_errors_status=$?; echo "${0##*/}: line $LINENO: stopped by exit $loud_errors_status of: $BASH_COMMAND" >&2' ERR
