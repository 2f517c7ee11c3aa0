package io.awscsi.ebs.controller;

import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * moto's server behind the project's EC2 realism layer (asynchronous states, ClientToken, paging, EC2's errors and
 * per-action throttling), on loopback, with an SDK client and a controller provider pointed at it. Closing it stops
 * both processes.
 */
final class Ec2Environment implements AutoCloseable {

  static final String ZONE = "us-east-1a";
  static final String OTHER_ZONE = "us-east-1b";

  private final MotoServer moto;
  final RealismProxy proxy;
  final Ec2Client ec2;

  private Ec2Environment(MotoServer moto, RealismProxy proxy) {
    this.moto = moto;
    this.proxy = proxy;
    this.ec2 = client(proxy.endpoint());
  }

  static Ec2Environment start(RealismProfile profile) {
    MotoServer moto = MotoServer.start();
    try {
      return new Ec2Environment(moto, RealismProxy.builder().upstream(moto.endpoint()).profile(profile).start());
    } catch (RuntimeException e) {
      moto.close();
      throw e;
    }
  }

  /** An EC2 client as the launcher must build it: no SDK retries, the facade retries. */
  static Ec2Client client(URI endpoint) {
    return Ec2Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDEBSTEST", "secret")))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
        .build();
  }

  static EbsControllerOptions testOptions() {
    return EbsControllerOptions.defaults("us-east-1").withDefaultCallTimeout(Duration.ofSeconds(60))
        .withModifyVolumeRequestHandlerTimeout(Duration.ofMillis(500));
  }

  EbsControllerProvider provider(EbsControllerOptions options, MetricsRegistry metrics) {
    return EbsControllerProvider.create(options, ec2, metrics);
  }

  /** A running instance (a node) in {@code zone}. */
  String runInstance(String zone) {
    return runInstance(zone, "m5.large");
  }

  /** A running instance of {@code instanceType} in {@code zone}. */
  String runInstance(String zone, String instanceType) {
    return ec2.runInstances(r -> r.imageId("ami-12c6146b").minCount(1).maxCount(1).instanceType(instanceType)
        .placement(p -> p.availabilityZone(zone))).instances().getFirst().instanceId();
  }

  void reset() {
    proxy.reset();
  }

  @Override
  public void close() {
    ec2.close();
    proxy.close();
    moto.close();
  }
}
