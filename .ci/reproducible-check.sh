#!/usr/bin/env bash
# Two builds of one commit give byte-identical jars, and the release profile gives everything Maven Central asks
# for (jar, sources, Javadoc, POM with its metadata) except the signature.
# Run after a build (.ci/run runs it after `./mvnw -B verify`): it records that build's jars, rebuilds from
# clean with -Prelease, deploying to the file repository target/ci-repo (which consumer-check.sh uses), and
# compares every jar the two builds share.
set -euo pipefail
cd "$(dirname "$0")/.."
before="$(mktemp)"
trap 'rm -f "$before"' EXIT

jars() { find . -mindepth 3 -maxdepth 3 -path './*/target/*.jar' -type f -print | sort; }
jars | while read -r j; do sha256sum "$j"; done > "$before"
[ -s "$before" ] || { echo "ci: reproducible: no jars from the first build (run ./mvnw verify first)" >&2; exit 1; }

./mvnw -B -q clean
# The shared local repository is never written to: deploy's install phase is skipped, and the metadata a deploy
# caches goes to a local repository of its own (target/ci-local) whose read-only tail is the shared one.
shared="$(./mvnw -B -q help:evaluate -Dexpression=settings.localRepository -DforceStdout)"
./mvnw -B -q -Prelease -DskipTests -Dsluice.bench.smoke=false -Dmaven.install.skip=true deploy \
  -Dmaven.repo.local="$PWD/target/ci-local" -Dmaven.repo.local.tail="$shared" \
  -DaltDeploymentRepository="ci::file://$PWD/target/ci-repo"

differ=0; same=0
while read -r sum file; do
  if [ ! -f "$file" ]; then
    echo "ci: reproducible: $file was built the first time only" >&2; differ=$((differ + 1)); continue
  fi
  if [ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sum" ]; then
    same=$((same + 1))
  else
    echo "ci: reproducible: $file differs between two builds of one commit" >&2; differ=$((differ + 1))
  fi
done < "$before"
[ "$differ" -eq 0 ] || { echo "ci: reproducible: FAILED, $differ jar(s) differ" >&2; exit 1; }
echo "ci: reproducible: $same jars byte-identical across two builds"

# What the release profile deployed: every published module with jar, sources, Javadoc and a complete POM.
python3 - "$PWD/target/ci-repo" <<'PY'
import glob, os, sys, xml.etree.ElementTree as ET
repo = sys.argv[1]
ns = {'m': 'http://maven.apache.org/POM/4.0.0'}
base = os.path.join(repo, 'dev', 'sluice')
problems = []
def latest(artifact, suffix):
    files = sorted(glob.glob(os.path.join(base, artifact, '*', artifact + '-*' + suffix)))
    files = [f for f in files if f.endswith(suffix) and (suffix != '.jar' or not f.endswith(('-sources.jar', '-javadoc.jar', '-tests.jar')))]
    return files[-1] if files else None
def pom(artifact):
    f = latest(artifact, '.pom')
    if f is None:
        problems.append(artifact + ': no POM deployed'); return None
    return ET.parse(f).getroot()
def has(root, path):
    e = root.find(path, ns)
    return e is not None and (len(e) > 0 or (e.text or '').strip())
parent = pom('sluice-parent')
for artifact, packaging in [('sluice-bom', 'pom'), ('sluice-api', 'jar'), ('sluice-cpu', 'jar'), ('sluice-cuda', 'jar'),
                            ('sluice-hip', 'jar'), ('sluice-reactive', 'jar'), ('sluice-micrometer', 'jar'),
                            ('sluice-arrow', 'jar'), ('sluice-flink', 'jar'), ('sluice-flink-dist', 'jar'),
                            ('sluice-spark', 'jar'), ('sluice-test', 'jar')]:
    root = pom(artifact)
    if root is None:
        continue
    for element in ['name', 'description', 'url', 'licenses', 'developers', 'scm']:
        here = has(root, 'm:' + element)
        inherited = parent is not None and root.find('m:parent', ns) is not None and has(parent, 'm:' + element)
        if not (here or inherited):
            problems.append(f'{artifact}: POM has no <{element}>')
    if packaging == 'jar':
        for suffix in ['.jar', '-sources.jar', '-javadoc.jar']:
            if latest(artifact, suffix) is None:
                problems.append(f'{artifact}: no {suffix} deployed')
for unpublished in ['sluice-benchmarks', 'sluice-cli', 'sluice-examples', 'sluice-stress']:
    if os.path.isdir(os.path.join(base, unpublished)):
        problems.append(unpublished + ' was deployed, but is not published')
if problems:
    print('ci: release artifacts: FAILED\n  ' + '\n  '.join(problems), file=sys.stderr); sys.exit(1)
print('ci: release artifacts: sluice-parent, sluice-bom and 11 modules with jar, sources, Javadoc and a complete POM')
PY
