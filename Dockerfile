# syntax=docker/dockerfile:1
# The mesh-injector image: the jar built with the Maven wrapper, run by bin/mesh-injector on a
# Java 25 JRE as uid 65532, with a JDK 25 AOT cache trained in the image itself. The chart's
# `image` values name what this builds:
#
#   docker build -t ghcr.io/mesh-injector/mesh-injector:0.1.0 .
#
# The root file system can be read-only: the launcher writes nothing, the JVM and Netty (which
# unpacks BoringSSL's native library) write only to /tmp (the chart mounts an emptyDir there), and
# `serve` reads its TLS files from --tls-dir.

FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY .mvn/ .mvn/
COPY mvnw pom.xml ./
COPY rule-engine/ rule-engine/
COPY injector-templates/ injector-templates/
COPY certs/ certs/
COPY webhook/ webhook/
COPY tests/pom.xml tests/pom.xml
# the tests ran in CI; the image is built from what passed them. `package` includes Spring AOT's
# process-aot (serve's bean definitions as generated code, which bin/jvm.options turns on)
RUN --mount=type=cache,target=/root/.m2 ./mvnw -B -q -DskipTests -Daot.skip=true package -pl webhook -am

FROM eclipse-temurin:25-jre
# the extracted jar (a plain class path, which the AOT cache can hold), the launcher, its flags,
# and the example cluster the training run decides over
COPY --from=build /src/webhook/target/app/ /app/lib/app/
COPY bin/mesh-injector bin/jvm.options bin/train-aot-cache /app/bin/
COPY examples/cluster.yaml /app/share/cluster.yaml
# the AOT cache: trained with this image's own JVM and jvm.options (so with Spring AOT on), on the
# jar at its final path, as root before the switch to the runtime uid, so the cache is read-only to
# the process that maps it
RUN /app/bin/train-aot-cache /app/share/cluster.yaml \
 && test -s /app/lib/app/mesh-injector.aot \
 && chmod -R a+rX,go-w /app
USER 65532:65532
WORKDIR /app
EXPOSE 8443 9090
ENTRYPOINT ["/app/bin/mesh-injector"]
CMD ["serve", "--help"]
