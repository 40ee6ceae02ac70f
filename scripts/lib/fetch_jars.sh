# Sourced by scripts/neo4j.sh and scripts/hdfs.sh (which define say and die): fetch a server's jars from Maven
# Central once, with `mvn dependency:copy-dependencies` over the script's pom.xml, into a folder that is complete or
# absent — the copy goes to a temp folder first and is moved into place whole, marked by its .complete file.
#
# fetch_jars WHAT POM LIB LOG_DIR EXPECTED_JAR [MAVEN_ARGUMENTS...]
#   WHAT          what the messages call it ("Neo4j 5.26.30 Community jars")
#   LIB           the folder to fill; nothing is done when LIB/.complete exists
#   EXPECTED_JAR  a jar the copy must hold, checked before the folder is accepted
fetch_jars() {
  local what="$1" pom="$2" lib="$3" log_dir="$4" expected="$5"
  shift 5
  [ ! -f "$lib/.complete" ] || return 0
  command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is needed once to fetch $what into $lib; install maven"
  say "fetching $what from Maven Central into $lib (once)"
  local t0=$SECONDS tmp="$lib.part.$$"
  mkdir -p "$log_dir"
  rm -rf "$tmp"
  if ! mvn -q -B -f "$pom" "$@" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp" \
      >"$log_dir/fetch.log" 2>&1; then
    tail -n 30 "$log_dir/fetch.log" >&2
    rm -rf "$tmp"
    die "Maven could not fetch $what (full output: $log_dir/fetch.log)"
  fi
  [ -f "$tmp/$expected" ] || die "Maven finished but $tmp/$expected is missing"
  touch "$tmp/.complete"
  rm -rf "$lib" && mv "$tmp" "$lib"
  say "fetched $(find "$lib" -name '*.jar' | wc -l) jars in $((SECONDS - t0))s"
}
