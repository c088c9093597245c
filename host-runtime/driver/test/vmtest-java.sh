#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# The Java boot of the importer's VM test (vmtest.py puts this at /java/run.sh): the same device,
# driven by the runtime's Java importer and CSR window from a jlinked runtime (/java,
# scripts/gpu-bundle.sh): /java/importer.sh and /java/csr.sh run `direkt-run importer` and
# `direkt-run csr`.
for command in importer csr; do
  cat > /java/$command.sh <<RUN
#!/bin/sh
cp=/java/classes
for j in /java/lib/*.jar; do cp="\$cp:\$j"; done
exec /java/jre/bin/java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m --enable-native-access=ALL-UNNAMED \\
  -cp "\$cp" org.direkt.runtime.cli.DirektRun $command "\$@"
RUN
  chmod +x /java/$command.sh
done
/bin/vmtest java
