# Sourced by ./hearth and ./run-tests: finds JDK 25 and builds target/hearth.jar when sources changed.
hearth_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

find_jdk25() {
  # The JDK's release file, not `java -version`: a JVM started only to ask costs every CLI command ~50 ms.
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && grep -qs '^JAVA_VERSION="25' "$JAVA_HOME/release"; then
    return 0
  fi
  local candidate
  for candidate in /usr/lib/jvm/temurin-25-jdk* /usr/lib/jvm/java-25-* /usr/lib/jvm/jdk-25*; do
    if [ -x "$candidate/bin/java" ]; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  done
  echo "hearth: JDK 25 not found under /usr/lib/jvm; install Temurin 25 or set JAVA_HOME" >&2
  exit 1
}

# Rebuilds the jar when it is missing or older than any source or pom (the agent's C sources too).
build_if_stale() {
  local jar="$hearth_root/app/target/hearth.jar"
  if [ ! -f "$jar" ] || [ -n "$(find "$hearth_root/app/src/main" "$hearth_root/agent" "$hearth_root/console/src" "$hearth_root/console/package-lock.json" "$hearth_root/pom.xml" "$hearth_root/app/pom.xml" -newer "$jar" -print -quit)" ]; then
    echo "hearth: building (first run or sources changed)..." >&2
    "$hearth_root/scripts/install-packages" --build >&2
    (cd "$hearth_root" && ./mvnw -B -q -DskipTests -pl app -am package) >&2
  fi
}
