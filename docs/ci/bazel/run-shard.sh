#!/bin/sh
# One shard of a Tidemark run under Bazel: the shard comes from Bazel's own variables.
set -eu
exec "$TIDEMARK" run $SCENARIOS --lane "${LANE:-monolith}" --report "$TEST_UNDECLARED_OUTPUTS_DIR/report"
