# The HTML summary names the failed check with its values and links the diff images.
if(TIDEMARK_MUTANTS)
  add_test(NAME Tidemark.Report.TheHtmlSummaryShowsTheFailedCheckAndItsImages
           COMMAND bash -c "rm -rf $0; $1 run --mutant buffer.host_write_when_busy $2 --report $0; \
grep -q '<span class=\"verdict\">RED</span>' $0/summary.html && grep -q '<h1 id=\"verdict\" class=\"red\">1 red' $0/summary.html && grep -q 'band 0 of 2: 128 of 128 pixels off' $0/summary.html && \
grep -q 'pixels-0-diff.png' $0/summary.html && test -f $0/monolith/wire-buffers/sub-data-into-a-busy-store-lands-between-the-draws/pixels-0-diff.png"
                   ${PROJECT_BINARY_DIR}/reports/html $<TARGET_FILE:tidemark> ${small_scenario})
  set_tests_properties(Tidemark.Report.TheHtmlSummaryShowsTheFailedCheckAndItsImages PROPERTIES LABELS cli)
endif()

# summary.html in a real browser: headless Chromium loads it without a console message, and its
# DOM has what summary.json says (scripts/testing/summary-in-chromium): a parity run's 4-lane
# digest matrix, and a mutant's red runs first with each failed check and its value.
if(TIDEMARK_MUTANTS)
  chromium_check(chromium_check ${PROJECT_SOURCE_DIR}/scripts/testing/summary-in-chromium)
  add_test(NAME Tidemark.Report.TheSummaryPageReadsInChromiumWithFailuresFirstAndTheDigestMatrix
           COMMAND bash -c "set -e; rm -rf $0; \
$1 parity $2 $3 --report $0/parity > /dev/null; $4 $0/parity; \
status=0; $1 run --lane spawn --mutant memo.no_destroy_epoch $5 --report $0/red > /dev/null || status=$?; \
test $status -eq 1; $4 $0/red"
                   ${PROJECT_BINARY_DIR}/reports/chromium $<TARGET_FILE:tidemark> ${budget_scenario}
                   ${PROJECT_SOURCE_DIR}/scenarios/kmd/a-command-buffer-recycled-before-its-fence-is-read-after-free.yaml
                   ${chromium_check} ${PROJECT_SOURCE_DIR}/scenarios/magma-reclaim)
  set_tests_properties(Tidemark.Report.TheSummaryPageReadsInChromiumWithFailuresFirstAndTheDigestMatrix PROPERTIES
                       LABELS "cli;html")
endif()

# Every run leaves a trace.pftrace that `tidemark trace` reads cleanly, and summary.html plots
# it: one SVG path per track the importer finds (and the parked bytes do rise and fall).
add_test(NAME Tidemark.Report.TheHtmlSummaryPlotsOnePathPerTraceTrack
         COMMAND bash -c "rm -rf $0; $1 run $2 --report $0 >/dev/null || exit 1; \
trace=$(ls $0/monolith/reclaim/*/trace.pftrace) && tracks=$($1 trace $trace | grep -c '^track ') && \
paths=$(grep -o '<path class=\"track\"' $0/summary.html | wc -l) && echo \"tracks $tracks, paths $paths\" && \
test $tracks -ge 7 && test $tracks -eq $paths && $1 trace $trace | grep -q '^  22000 9437184$'"
                 ${PROJECT_BINARY_DIR}/reports/trace-plot $<TARGET_FILE:tidemark> ${budget_scenario})
set_tests_properties(Tidemark.Report.TheHtmlSummaryPlotsOnePathPerTraceTrack PROPERTIES LABELS cli)

# A long command on a terminal (a pty) draws a status line, and in a pipe or with --quiet none.
add_test(NAME Tidemark.Progress.AStatusLineOnATerminalNoneInAPipeOrWhenQuiet
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/progress-on-a-terminal $<TARGET_FILE:tidemark>
                 ${PROJECT_BINARY_DIR}/progress ${PROJECT_SOURCE_DIR}/scenarios/counters)
set_tests_properties(Tidemark.Progress.AStatusLineOnATerminalNoneInAPipeOrWhenQuiet PROPERTIES LABELS "cli;progress"
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
