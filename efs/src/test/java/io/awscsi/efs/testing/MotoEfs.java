package io.awscsi.efs.testing;

import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.cloud.SdkEfsCloud;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.MotoServer;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Subnet;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.sts.StsClient;

/**
 * moto's server behind the realism proxy (ClientToken idempotency, DescribeAccessPoints paging, AccessPointNotFound,
 * the access-point quota), with SDK clients pointed at it. The SDK's own retries are off, as the driver wants them.
 */
public final class MotoEfs implements AutoCloseable {

  public static final Region REGION = Region.US_EAST_1;
  private static final AwsCredentialsProvider CREDENTIALS =
      StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing"));

  private final MotoServer moto;
  private final RealismProxy proxy;
  private final EfsClient efs;
  private final Ec2Client ec2;
  private final StsClient sts;

  private MotoEfs(MotoServer moto, RealismProxy proxy) {
    this.moto = moto;
    this.proxy = proxy;
    this.efs = efsClient(CREDENTIALS);
    this.ec2 = Ec2Client.builder().endpointOverride(proxy.endpoint()).region(REGION).credentialsProvider(CREDENTIALS)
        .build();
    this.sts = StsClient.builder().endpointOverride(proxy.endpoint()).region(REGION).credentialsProvider(CREDENTIALS)
        .build();
  }

  public static MotoEfs start(RealismProfile profile) {
    MotoServer moto = MotoServer.start();
    try {
      return new MotoEfs(moto, RealismProxy.builder().upstream(moto.endpoint()).profile(profile).start());
    } catch (RuntimeException e) {
      moto.close();
      throw e;
    }
  }

  public EfsClient efsClient(AwsCredentialsProvider credentials) {
    return EfsClient.builder().endpointOverride(proxy.endpoint()).region(REGION).credentialsProvider(credentials)
        .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry())).build();
  }

  public EfsClient efs() {
    return efs;
  }

  public StsClient sts() {
    return sts;
  }

  public RealismProxy proxy() {
    return proxy;
  }

  public URI endpoint() {
    return proxy.endpoint();
  }

  /** A cloud factory with short backoffs, so throttling tests stay fast. */
  public EfsCloudFactory clouds(MetricsRegistry metrics) {
    return new EfsCloudFactory(efs, this::efsClient, () -> sts,
        SdkEfsCloud.callRunner(metrics, new AwsRetryPolicy(Duration.ofMillis(20), Duration.ofMillis(200), 6)));
  }

  /** A regional file system with no mount targets. */
  public String createFileSystem() {
    return efs.createFileSystem(r -> r.creationToken(UUID.randomUUID().toString())).fileSystemId();
  }

  /** A One Zone file system in the zone. */
  public String createOneZoneFileSystem(String zone) {
    return efs.createFileSystem(r -> r.creationToken(UUID.randomUUID().toString()).availabilityZoneName(zone))
        .fileSystemId();
  }

  /** One mount target in each of the first {@code zones} subnets of moto's default VPC; returns their zones. */
  public List<String> createMountTargets(String fileSystemId, int zones) {
    List<Subnet> subnets = ec2.describeSubnets().subnets().stream()
        .sorted(java.util.Comparator.comparing(Subnet::availabilityZone)).limit(zones).toList();
    subnets.forEach(s -> efs.createMountTarget(r -> r.fileSystemId(fileSystemId).subnetId(s.subnetId())));
    return subnets.stream().map(Subnet::availabilityZone).toList();
  }

  /** Forgets every resource and every realism record. */
  public void reset() {
    proxy.reset();
  }

  @Override
  public void close() {
    efs.close();
    ec2.close();
    sts.close();
    proxy.close();
    moto.close();
  }
}
