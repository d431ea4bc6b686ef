# tidemark bisect (harness/bisect): a toy driver's git history generated at test time
# (scripts/testing/bisect-toy-history: a Vulkan layer in C beneath Zink and the Tidemark layer,
# above lavapipe, compiled by cc) bisected with --repo, its planted first bad commit found within
# ceil(log2 n)+2 judgements, the commit that does not compile and the one that renames the device
# skipped, the user's checkout untouched; and the two Mesa builds as a list.
set(toy_driver ${PROJECT_SOURCE_DIR}/scripts/testing/bisect-toy-driver)
add_test(NAME Tidemark.Bisect.FindsThePlantedFirstBadCommitOfAToyDriverSkippingTheBrokenAndTheRenamed
         COMMAND ${toy_driver} $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/reports/bisect-toy 5)
set_tests_properties(Tidemark.Bisect.FindsThePlantedFirstBadCommitOfAToyDriverSkippingTheBrokenAndTheRenamed
                     PROPERTIES LABELS "bisect;zink" COST 30
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
# Four more planted positions, each range bisected twice over one cache: the second builds nothing.
add_test(NAME Tidemark.Bisect.FindsEveryPlantedPositionAndASecondBisectRebuildsNothing
         COMMAND ${toy_driver} $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/reports/bisect-toy-all
                 1 3 9 16 22 --again)
set_tests_properties(Tidemark.Bisect.FindsEveryPlantedPositionAndASecondBisectRebuildsNothing
                     PROPERTIES LABELS "bisect;zink;nightly"
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
if(NOT TIDEMARK_SANITIZED)  # a sanitizer build replays no captures
# --jobs 3: the candidates the search may judge next are built while one is judged, each in a clone
# of its own; the same first bad, builds made that were never judged, and a second bisect builds nothing.
add_test(NAME Tidemark.Bisect.BuildingAheadFindsTheSameFirstBad
         COMMAND ${toy_driver} $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/reports/bisect-toy-jobs
                 9 --jobs 3 --again)
set_tests_properties(Tidemark.Bisect.BuildingAheadFindsTheSameFirstBad
                     PROPERTIES LABELS "bisect;zink;nightly"
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
# A commit whose runs differ (a cache file it finds on its second run), each candidate judged
# twice: it is reported nondeterministic with its two digests, and the planted first bad still found.
add_test(NAME Tidemark.Bisect.ACommitWhoseRunsDifferIsNondeterministicNeverJudged
         COMMAND ${toy_driver} $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/reports/bisect-toy-nd
                 16 --nondeterministic 13 --repeat 2)
set_tests_properties(Tidemark.Bisect.ACommitWhoseRunsDifferIsNondeterministicNeverJudged
                     PROPERTIES LABELS "bisect;zink;nightly"
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
# The two real Mesa builds as a list, each judged twice (repeats that disagree would end it): the respecify capture is green on 22.3.6 and red on 25.0.7
# (a buffer left at its end), so 25.0.7 is the first bad and 22.3.6 the last good; --reduce cuts
# the capture to a fixture red on the one (its control the build) and green on the other.
add_test(NAME Tidemark.Bisect.TheTwoMesaBuildsAsAListFindTheNewerBad
         COMMAND bash -c "set -e; rm -rf $2; $0 --drivers $1/drivers.yaml bisect $1/captures/gl-respecify/two-thousand-4-kib-respecify-rounds.capture.yaml \
--builds $1/drivers.yaml --builds $3/driver.yaml --only '^mesa-' --repeat 2 --report $2 --reduce >$2.log 2>&1 || { cat $2.log; exit 1; }; cat $2.log; \
grep -q '^bisect: first bad: mesa-25.0.7$' $2.log && grep -q '^bisect: last good: mesa-22.3.6$' $2.log && \
grep -q '\"first_bad\": 1' $2/bisect.json && test -s $2/bisect.html && \
grep -qx '  - build: mesa-25.0.7' $2/reduced/*/*.capture.yaml && grep -q '^bisect: reduced: ' $2.log"
                 $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/reports/bisect-mesa ${mesa_prefix})
set_tests_properties(Tidemark.Bisect.TheTwoMesaBuildsAsAListFindTheNewerBad PROPERTIES
                     LABELS "bisect;drivers;zink;capture;nightly" FIXTURES_REQUIRED mesa25
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
endif()
# The ends are judged first: a good end that is bad is bad input naming it (exit 2).
add_test(NAME Tidemark.Bisect.AGoodEndThatIsBadIsBadInputNamingIt
         COMMAND ${expect_exit} 2 "the good end \\(candidate 1\\) is bad, expected good"
                 $<TARGET_FILE:tidemark> --drivers ${PROJECT_SOURCE_DIR}/drivers.yaml bisect
                 ${testdata}/bisect/three-hundred-small-respecify-and-draw-rounds.yaml --builds ${PROJECT_SOURCE_DIR}/drivers.yaml
                 --only "^mesa-22" --builds ${PROJECT_SOURCE_DIR}/drivers.yaml --gauge devbytespk --worse-than 1
                 --report ${PROJECT_BINARY_DIR}/reports/bisect-bad-end)
set_tests_properties(Tidemark.Bisect.AGoodEndThatIsBadIsBadInputNamingIt PROPERTIES LABELS "bisect;cli;zink"
                     ENVIRONMENT "XDG_RUNTIME_DIR=${PROJECT_BINARY_DIR}/xdg-runtime")
# Bad input before anything is built or run (exit 2): a --good that is no commit, both kinds of candidates.
add_test(NAME Tidemark.Bisect.AGoodRevisionThatIsNoCommitIsBadInput
         COMMAND ${expect_exit} 2 "^tidemark: --good: expected a commit of .*, found 'no-such-revision'$"
                 $<TARGET_FILE:tidemark> bisect ${testdata}/bisect/three-hundred-small-respecify-and-draw-rounds.yaml
                 --repo ${PROJECT_SOURCE_DIR} --good no-such-revision --bad HEAD --build true
                 --cache ${PROJECT_BINARY_DIR}/reports/bisect-cache-bad-input --report ${PROJECT_BINARY_DIR}/reports/bisect-bad-good)
add_test(NAME Tidemark.Bisect.BuildsAndARepositoryAtOnceAreBadInput
         COMMAND ${expect_exit} 2 "^tidemark: expected --builds LIST or --repo DIR --good REV --bad REV --build CMD, one of the two$"
                 $<TARGET_FILE:tidemark> bisect ${testdata}/bisect/three-hundred-small-respecify-and-draw-rounds.yaml
                 --builds ${PROJECT_SOURCE_DIR}/drivers.yaml --repo ${PROJECT_SOURCE_DIR} --good HEAD --bad HEAD --build true
                 --report ${PROJECT_BINARY_DIR}/reports/bisect-both)
set_tests_properties(Tidemark.Bisect.AGoodRevisionThatIsNoCommitIsBadInput Tidemark.Bisect.BuildsAndARepositoryAtOnceAreBadInput
                     PROPERTIES LABELS "bisect;cli")
