# Sourced: debian_archive prints "URI SUITE" for the Debian archive this machine's apt uses: the
# first deb stanza of a deb822 .sources file, else the first `deb` line of a one-line list (a fresh
# Debian root has only /etc/apt/sources.list). The security archive is not the one packages come
# from, and a suite such as bookworm-updates is printed as its release (bookworm). Fails naming
# the files it read when none has an archive.
debian_archive() {
  local etc=${TIDEMARK_APT_ETC:-/etc/apt}  # another folder of apt sources: the tests' own
  local sources=("$etc"/sources.list.d/*.sources "$etc"/sources.list "$etc"/sources.list.d/*.list)
  local file found="" uri suite
  for file in "${sources[@]}"; do
    [ -r "$file" ] || continue
    case $file in
      *.sources) found+=$(awk 'BEGIN {RS = ""; FS = "\n"}
                      { types = uris = suites = ""
                        for (i = 1; i <= NF; i++) {
                          if ($i ~ /^Types:/) types = $i
                          if ($i ~ /^URIs:/) { split($i, f, " "); uris = f[2] }
                          if ($i ~ /^Suites:/) { split($i, f, " "); suites = f[2] } }
                        if (types ~ /[[:space:]]deb([[:space:]]|$)/ && uris != "" && suites !~ /-security$/) print uris, suites }' "$file")$'\n' ;;
      *) found+=$(sed -E -n 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+([^[:space:]]+).*/\2 \3/p' "$file" |
                  awk '$2 !~ /-security$/')$'\n' ;;
    esac
  done
  found=${found#"${found%%[![:space:]]*}"}
  read -r uri suite <<<"${found%%$'\n'*}" || true
  if [ -z "${uri:-}" ] || [ -z "${suite:-}" ]; then
    echo "${0##*/}: expected a Debian archive (a deb stanza or line that is not -security) in ${sources[*]}, found none" >&2
    return 3
  fi
  echo "$uri ${suite%%-*}"
}
