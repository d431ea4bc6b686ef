# Sharding by each engine's protocol: three shards of the whole set, by the flag and by Bazel's,
# GoogleTest's and GitLab's variables, list every test exactly once between them (the status
# file touched where the engine asks for one); three shards of a real run, merged, give every
# scenario one result; what no engine sends is refused.
add_test(NAME Tidemark.Shard.ThreeShardsUnderEachProtocolRunEveryTestOnce
         COMMAND bash -c "set -e; d=$0/shard; rm -rf $d; mkdir -p $d; cd $3; \
$1 list scenarios/kmd --shard 1/1 | sort > $d/all.txt; test -s $d/all.txt; \
for k in 1 2 3; do $1 list scenarios/kmd --shard $k/3 > $d/flag-$k.txt; done; \
for k in 0 1 2; do TEST_TOTAL_SHARDS=3 TEST_SHARD_INDEX=$k TEST_SHARD_STATUS_FILE=$d/bazel-status-$k $1 list scenarios/kmd > $d/bazel-$k.txt; test -e $d/bazel-status-$k; done; \
for k in 0 1 2; do GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$k GTEST_SHARD_STATUS_FILE=$d/gtest-status-$k $1 list scenarios/kmd > $d/gtest-$k.txt; test -e $d/gtest-status-$k; done; \
for k in 1 2 3; do CI_NODE_TOTAL=3 CI_NODE_INDEX=$k $1 list scenarios/kmd > $d/gitlab-$k.txt; done; \
for protocol in flag bazel gtest gitlab; do cat $d/$protocol-*.txt | sort > $d/$protocol-union.txt; \
diff $d/all.txt $d/$protocol-union.txt; test -z \"$(uniq -d $d/$protocol-union.txt)\"; \
for f in $d/$protocol-?.txt; do test -s $f; done; done; \
cmp $d/flag-1.txt $d/gitlab-1.txt; cmp $d/flag-2.txt $d/gtest-1.txt; \
for k in 1 2 3; do $1 run scenarios/kmd --shard $k/3 --report $d/run-$k > /dev/null; done; \
$1 merge $d/run-1 $d/run-2 $d/run-3 --out $d/merged > /dev/null; \
grep -o '<testcase classname=\"[^\"]*\" name=\"[^\"]*\"' $d/merged/junit.xml | sort > $d/ran.txt; \
$1 list scenarios/kmd --shard 1/1 | grep '^Magma.Monolith' | sed 's/ .*//' | sort > $d/kmd.txt; \
test $(grep -c '' $d/ran.txt) -eq $(grep -c '' $d/kmd.txt); test -z \"$(uniq -d $d/ran.txt)\"; \
$2 2 'expected I/N with I from 1 to N and N at most 10000, such as 2/3, found .4/3.' $1 list scenarios --shard 4/3; \
CI_NODE_TOTAL=3 CI_NODE_INDEX=0 $2 2 'CI_NODE_INDEX: expected a shard index from 1 to 3, found .0.' $1 run scenarios/kmd"
                 ${PROJECT_BINARY_DIR} $<TARGET_FILE:tidemark> ${expect_exit} ${PROJECT_SOURCE_DIR})
# Its runs hold several lavapipe sessions in one process: under LeakSanitizer, Mesa leaks 208
# bytes in a driver library it has unloaded by exit, too late to name. Not ours to mend; memory
# errors are still caught.
set_tests_properties(Tidemark.Shard.ThreeShardsUnderEachProtocolRunEveryTestOnce PROPERTIES LABELS "cli"
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
# The same under Bazel (docs/ci/bazel): an sh_test with shard_count = 3, offline with Debian's
# bazel-bootstrap. Registered where Bazel is installed (the nightly's set-up installs it:
# TIDEMARK_SETUP_BAZEL=1 scripts/setup); CI's machine does without its 400 MB.
find_program(BAZEL bazel)
if(BAZEL)
  add_test(NAME Tidemark.Merge.ABazelShTestInThreeShardsMergesToTheUnshardedRun
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/bazel-shards $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR}
                   ${PROJECT_BINARY_DIR}/bazel-shards scenarios/kmd scenarios/counters)
  set_tests_properties(Tidemark.Merge.ABazelShTestInThreeShardsMergesToTheUnshardedRun PROPERTIES
                       LABELS "cli;merge;bazel" RUN_SERIAL TRUE
                       ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
endif()
# The GitLab example (docs/ci/gitlab-ci.yml) as GitLab runs it: three shard jobs as processes at
# once, then the merge job; the merged summary is the unsharded run, test for test and digest
# for digest; a shard missing or given twice is bad input.
add_test(NAME Tidemark.Merge.TheGitLabExampleRunsItsShardsAsProcessesAndMerges
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/testing/gitlab-merge $<TARGET_FILE:tidemark> ${PROJECT_SOURCE_DIR}
                 ${PROJECT_BINARY_DIR}/gitlab-merge ${expect_exit} scenarios/counters scenarios/kgsl scenarios/magma-wire-buffers)
set_tests_properties(Tidemark.Merge.TheGitLabExampleRunsItsShardsAsProcessesAndMerges PROPERTIES LABELS "cli;merge"
                     ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
