# Capture fixtures (captures/*.capture.yaml): a real program's apitrace capture replayed by
# eglretrace on Zink under the layer, held to its bounds three times over with one set of gauges
# (the nightly: 20), each control red exactly as it names, and a bad fixture refused at its place.
# Not in a sanitizer build: the instrumented layer needs the sanitizer runtime, which eglretrace lacks.
if(TIDEMARK_SANITIZED)
  return()
endif()
set(captures ${PROJECT_SOURCE_DIR}/captures)
# A test that writes beside its folder (its .log) makes the parent first: in a fresh build tree no
# other test has made ${PROJECT_BINARY_DIR}/reports yet, and a test with a COST starts first (the
# reduce below failed in 0.04 s so, a shell's redirection into a folder not there).
add_test(NAME Tidemark.Capture.TheGlRespecifyCaptureReplaysWithinItsBoundsWithOneSetOfGauges
         COMMAND ${expect_exit} 0 "GREEN Capture.Captures.two-thousand-4-kib-respecify-rounds-replay-under-a-buffer-ceiling"
                 $<TARGET_FILE:tidemark> run ${captures} --repeat 3 --report ${PROJECT_BINARY_DIR}/reports/capture)
add_test(NAME Tidemark.Capture.EachFaultMakesExactlyTheChecksItNamesRed
         COMMAND ${expect_exit} 0 "RED-ONCE PASS captures/two-thousand-4-kib-respecify-rounds-replay-under-a-buffer-ceiling"
                 $<TARGET_FILE:tidemark> red-once ${captures} --ledger ${PROJECT_SOURCE_DIR}/red_once/ledger.txt --report ${PROJECT_BINARY_DIR}/reports/capture-red-once)
add_test(NAME Tidemark.Capture.AControlNamingACheckTheFixtureLacksIsBadInput
         COMMAND ${expect_exit} 2 "bad.capture.yaml:[0-9]+:[0-9]+: expected a check of the fixture"
                 $<TARGET_FILE:tidemark> run ${testdata}/capture/bad.capture.yaml)
set_tests_properties(Tidemark.Capture.TheGlRespecifyCaptureReplaysWithinItsBoundsWithOneSetOfGauges
                     Tidemark.Capture.EachFaultMakesExactlyTheChecksItNamesRed
                     Tidemark.Capture.AControlNamingACheckTheFixtureLacksIsBadInput
                     PROPERTIES LABELS "capture;zink;cli" TIMEOUT 120
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
# tidemark capture: a program (tools/gl-respecify, 300 rounds) captured on Zink becomes a fixture
# whose bounds its replay measured (an "at least" one among them: more buffers made than its
# setup calls alone make, red under that replay) and whose controls are red; run and red-once take it as it is,
# and a second capture of the same name is refused.
add_test(NAME Tidemark.Capture.ACapturedProgramBecomesAFixtureThatRunsGreenAndGoesRedUnderItsControl
         COMMAND bash -c "set -e; rm -rf $0; mkdir -p $(dirname $0); $1 capture --out $0 --name three-hundred-rounds -- $2 --rounds 300 --size 4096 | tee $0.log; \
grep -q 'control hold_frees fails vkbufs == 0 (red, as it names)' $0.log; grep -q 'expect vkbufspk <= 306' $0.log; \
grep -q 'control replay=setup fails vkbufsmade > 3 (red, as it names)' $0.log; \
$1 run $0 --report $0-run | grep -q '^1 green, 0 red'; $1 red-once $0 --ledger $0-ledger.txt --update-ledger --report $0-red-once | grep -q 'RED-ONCE PASS captures/three-hundred-rounds'; \
if $1 capture --out $0 --name three-hundred-rounds -- $2 --rounds 3 2>$0.again; then exit 1; fi; grep -q 'is there already' $0.again"
                 ${PROJECT_BINARY_DIR}/reports/capture-made $<TARGET_FILE:tidemark> $<TARGET_FILE:tidemark-gl-respecify>)
set_tests_properties(Tidemark.Capture.ACapturedProgramBecomesAFixtureThatRunsGreenAndGoesRedUnderItsControl
                     PROPERTIES LABELS "capture;zink;cli" TIMEOUT 120)
# tidemark reduce of a capture: the gl-respecify capture's 4 061 calls cut to its setup and the
# two calls that keep a refused third allocation (fail_allocation=3) red and the replay green
# without the fault, written as a fixture whose control is that fault (red-once before it is
# written); a capture that does not tell the bug from the fix, a check it lacks, a GFXR capture and
# a scenario's bug options are bad input.
set(respecify_capture ${captures}/gl-respecify/two-thousand-4-kib-respecify-rounds.capture.yaml)
add_test(NAME Tidemark.Capture.ReduceCutsTheRespecifyCaptureToTheCallsThatKeepARefusedAllocation
         COMMAND bash -c "set -e; rm -rf $0; mkdir -p $(dirname $0); $1 reduce $2 --check 'vkrefused == 0' --fault fail_allocation=3 --name refused --out $0 >$0.log 2>&1 || { cat $0.log; exit 1; }; \
grep -q 'REDUCED .*: 2 calls besides its 58 setup calls (glBufferData, glReadPixels) from 4061 calls' $0.log; \
grep -q 'fault=fail_allocation=3: RED (as required)' $0.log; $1 run $0 --report $0-run | grep -q '^1 green, 0 red'"
                 ${PROJECT_BINARY_DIR}/reports/capture-reduced $<TARGET_FILE:tidemark> ${respecify_capture})
# Stopped part way (Ctrl-C, as a budget would), a reduction writes its best cut so far, proven: a
# case (tests/cases/capture).
add_test(NAME Tidemark.Capture.ReduceRefusesACaptureThatDoesNotTellTheBugFromTheFix
         COMMAND ${expect_exit} 2 "expected vkbufspk <= 2100 red under the bug and the replay green under the fix, found under the bug \\(fault=never_done\\): GREEN"
                 $<TARGET_FILE:tidemark> reduce ${respecify_capture} --check gauge[0] --fault never_done --out ${PROJECT_BINARY_DIR}/reports/capture-not-reduced)
add_test(NAME Tidemark.Capture.ReduceRefusesACheckTheFixtureLacks
         COMMAND ${expect_exit} 2 "--check: expected a check of .* or gauge\\[K\\], found 'vkbufs < 1'"
                 $<TARGET_FILE:tidemark> reduce ${respecify_capture} --check "vkbufs < 1" --fault hold_frees)
add_test(NAME Tidemark.Capture.ReduceTakesOneBugForACapture
         COMMAND ${expect_exit} 2 "expected one bug for a capture, --fault or --bug-build, found both"
                 $<TARGET_FILE:tidemark> reduce ${respecify_capture} --check check[0] --fault hold_frees --bug-build mesa-25.0.7)
set_tests_properties(Tidemark.Capture.ReduceCutsTheRespecifyCaptureToTheCallsThatKeepARefusedAllocation
                     Tidemark.Capture.ReduceRefusesACaptureThatDoesNotTellTheBugFromTheFix
                     Tidemark.Capture.ReduceRefusesACheckTheFixtureLacks
                     Tidemark.Capture.ReduceTakesOneBugForACapture
                     PROPERTIES LABELS "capture;zink;cli" TIMEOUT 120)
# compare of a capture fixture: a row, its replay's layer gauges in the cell; a column of another
# backend than the capture's does not apply, and a row no column judged fails the comparison
# (nothing judged is never a pass). The two driver builds side by side: scripts/testing/driver-builds.
add_test(NAME Tidemark.Capture.CompareReplaysTheCaptureOnItsOwnBackendOnly
         COMMAND bash -c "set -e; mkdir -p $2; $0 compare $1 --backend gl --report $2/gl | tee $2.gl.log | grep -q 'gl  *green  *vkbufs=0 vkbufspk=2004 vkallocspk=6 vkbytespk=12582912'; \
if $0 compare $1 --backend vulkan --report $2/vulkan >$2.vulkan.log; then exit 1; fi; grep -q 'NOT JUDGED .*the capture (apitrace) replays on gl only' $2.vulkan.log"
                 $<TARGET_FILE:tidemark> ${respecify_capture} ${PROJECT_BINARY_DIR}/reports/capture-compare)
set_tests_properties(Tidemark.Capture.CompareReplaysTheCaptureOnItsOwnBackendOnly PROPERTIES LABELS "capture;zink;cli" TIMEOUT 120)
# tidemark capture --vulkan: a Vulkan program (bench/floor's 20 buffer cycles) captured by
# GFXReconstruct becomes a fixture whose controls were measured: a driver that never frees makes
# its bounds red, and a refused first allocation makes gfxrecon-replay itself fail.
add_test(NAME Tidemark.Capture.AVulkanProgramCapturedByGfxreconstructBecomesAFixtureWhoseReplayAFaultFails
         COMMAND bash -c "set -e; rm -rf $0; mkdir -p $(dirname $0); $1 capture --vulkan --out $0 --name twenty-cycles -- $2 --cycles 20 --size 4096 | tee $0.log; \
grep -q 'control fail_allocation=1 fails replay (red, as it names)' $0.log; grep -q 'control hold_frees fails vkbufspk <= 2, vkbytespk <= 8192, vkallocspk <= 2, vkbufs == 0 (red, as it names)' $0.log; \
$1 run $0 --repeat 3 --report $0-run | grep -q '^1 green, 0 red'"
                 ${PROJECT_BINARY_DIR}/reports/capture-vulkan $<TARGET_FILE:tidemark> $<TARGET_FILE:tidemark-vulkan-floor>)
set_tests_properties(Tidemark.Capture.AVulkanProgramCapturedByGfxreconstructBecomesAFixtureWhoseReplayAFaultFails
                     PROPERTIES LABELS "capture;cli" TIMEOUT 120)
# A real program's capture made at test time: Debian's glmark2-es2 buffer scene (map and subdata
# updates, 20 frames under xvfb-run; 3.2 MB each, too big to keep) held to the checked-in bounds
# of tests/testdata/capture/glmark2, three replays one digest, every control red, and the run's
# gauges equal to observe's of the same replay: a case (tests/cases/capture).
# compare.html in a real browser (scripts/testing/compare-in-chromium): a scenario and a capture on
# two backends; the header's counts, each column's driver, the legend, each cell's verdict and its
# link to the run folder match compare.json (the capture's vulkan cell is not judged: exit 1).
chromium_check(compare_page_check ${PROJECT_SOURCE_DIR}/scripts/testing/compare-in-chromium)
add_test(NAME Tidemark.Report.TheComparePageReadsInChromiumWithEachColumnsDriverAndLinksToItsRuns
         COMMAND bash -c "set -e; rm -rf $0; mkdir -p $(dirname $0); status=0; $1 compare $2 $3 --backend vulkan --backend gl \
--expectations $4 --report $0 > $0.log || status=$?; test $status -eq 1; $5 $0"
                 ${PROJECT_BINARY_DIR}/reports/compare-page $<TARGET_FILE:tidemark>
                 ${PROJECT_SOURCE_DIR}/scenarios/portable/each-band-draws-the-colour-its-store-held-when-it-was-drawn.yaml
                 ${PROJECT_SOURCE_DIR}/captures/gl-respecify ${PROJECT_SOURCE_DIR}/expectations.txt ${compare_page_check})
set_tests_properties(Tidemark.Report.TheComparePageReadsInChromiumWithEachColumnsDriverAndLinksToItsRuns PROPERTIES
                     LABELS "capture;zink;cli;html" TIMEOUT 120)
# A capture replayed through Debian 12's own virgl stack (drivers.yaml's virgl-zink-22.3.6), each
# replay with a server of its own: the replay, the tap, a server that dies, ten replays under load
# and the reduce across the wire are cases (tests/cases/capture).
