package io.awscsi.local;

import io.awscsi.launcher.DriverOptions.Driver;
import io.awscsi.realism.CallStats;
import io.awscsi.realism.RealismProfile;
import io.awscsi.realism.RealismProxy;
import io.awscsi.realism.process.InstanceMetadataFront;
import io.awscsi.realism.process.MetadataMock;
import io.awscsi.realism.process.MotoServer;
import java.net.URI;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.InstanceType;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * Emulated AWS on loopback for the local runtime and the end-to-end tests: moto's server behind the project's realism
 * layer, one EC2 instance that plays "this node", the IMDS emulator reporting that same instance, and one EFS file
 * system. IMDS lists the network interfaces EC2 has attached to the instance now ({@link InstanceMetadataFront}).
 * Closing it stops every process it started.
 */
public final class LocalAws implements AutoCloseable {

  public static final String REGION = "us-east-1";
  public static final String ZONE = "us-east-1a";
  public static final String INSTANCE_TYPE = "m5.large";

  private final MotoServer moto; // null when attached to an emulator this object did not start
  private final RealismProxy proxy;
  private final MetadataMock imds;
  private final InstanceMetadataFront imdsFront;
  private final String instanceId;
  private final String fileSystemId;

  private LocalAws(MotoServer moto, RealismProxy proxy, MetadataMock imds, InstanceMetadataFront imdsFront,
      String instanceId, String fileSystemId) {
    this.moto = moto;
    this.proxy = proxy;
    this.imds = imds;
    this.imdsFront = imdsFront;
    this.instanceId = instanceId;
    this.fileSystemId = fileSystemId;
  }

  public static LocalAws start(RealismProfile profile) {
    MotoServer moto = MotoServer.start();
    try {
      return provision(moto, moto.endpoint(), profile, true);
    } catch (RuntimeException e) {
      moto.close();
      throw e;
    }
  }

  /**
   * Emulated AWS in front of an EC2/EFS emulator that is already running (LocalStack, a moto started elsewhere): the
   * realism layer and IMDS as in {@link #start}, but no moto process; closing leaves the emulator running.
   */
  public static LocalAws attach(URI emulator, RealismProfile profile) {
    return attach(emulator, profile, EnumSet.allOf(Driver.class));
  }

  /**
   * As {@link #attach(URI, RealismProfile)} for an emulator that serves only what {@code drivers} need: without EFS
   * (LocalStack's community edition has none) no file system is made.
   */
  public static LocalAws attach(URI emulator, RealismProfile profile, Set<Driver> drivers) {
    return provision(null, emulator, profile, drivers.contains(Driver.EFS));
  }

  private static LocalAws provision(MotoServer moto, URI upstream, RealismProfile profile, boolean withEfs) {
    RealismProxy proxy = RealismProxy.builder().upstream(upstream).profile(profile).start();
    try {
      String instanceId;
      String fileSystemId = null;
      try (Ec2Client ec2 = ec2(proxy.endpoint())) {
        // moto (and LocalStack, which runs EC2 on moto) accepts any image id unless AMI validation is switched on.
        String ami = "ami-0123456789abcdef0";
        instanceId = ec2.runInstances(r -> r.imageId(ami).minCount(1).maxCount(1)
                .instanceType(InstanceType.fromValue(INSTANCE_TYPE)).placement(p -> p.availabilityZone(ZONE)))
            .instances().getFirst().instanceId();
      }
      if (withEfs) {
        try (EfsClient efs = efs(proxy.endpoint())) {
          fileSystemId = efs.createFileSystem(r -> r.creationToken("aws-csi-local").encrypted(true)).fileSystemId();
        }
      }
      MetadataMock imds = MetadataMock.builder().instanceId(instanceId).instanceType(INSTANCE_TYPE)
          .availabilityZone(ZONE).start();
      InstanceMetadataFront imdsFront;
      try {
        // The ENIs IMDS lists follow EC2: one attached to the instance later takes an attachment slot.
        imdsFront = InstanceMetadataFront.start(imds.endpoint(), upstream, instanceId, REGION);
      } catch (RuntimeException e) {
        imds.close();
        throw e;
      }
      proxy.resetStats();
      return new LocalAws(moto, proxy, imds, imdsFront, instanceId, fileSystemId);
    } catch (RuntimeException e) {
      proxy.close();
      throw e;
    }
  }

  /** The environment a driver process needs to use this emulated AWS. */
  public Map<String, String> driverEnvironment() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("AWS_REGION", REGION);
    env.put("AWS_ENDPOINT_URL", proxy.endpoint().toString());
    // No credentials: for a loopback endpoint the client configuration uses dummy keys on its own.
    env.put("AWS_EC2_METADATA_SERVICE_ENDPOINT", imdsFront.endpoint().toString());
    env.put("DISABLE_TAINT_WATCHER", "true");
    return env;
  }

  public String instanceId() {
    return instanceId;
  }

  /** The EFS file system made at start; none when attached without EFS. */
  public String fileSystemId() {
    if (fileSystemId == null) {
      throw new IllegalStateException("this emulated AWS has no EFS (attached for EBS only)");
    }
    return fileSystemId;
  }

  public URI endpoint() {
    return proxy.endpoint();
  }

  public URI imdsEndpoint() {
    return imdsFront.endpoint();
  }

  public CallStats stats() {
    return proxy.stats();
  }

  public RealismProxy proxy() {
    return proxy;
  }

  public static Ec2Client ec2(URI endpoint) {
    return Ec2Client.builder().endpointOverride(endpoint).region(Region.of(REGION))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")))
        .httpClient(UrlConnectionHttpClient.create()).build();
  }

  public static EfsClient efs(URI endpoint) {
    return EfsClient.builder().endpointOverride(endpoint).region(Region.of(REGION))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")))
        .httpClient(UrlConnectionHttpClient.create()).build();
  }

  @Override
  public void close() {
    imdsFront.close();
    imds.close();
    proxy.close();
    if (moto != null) {
      moto.close();
    }
  }
}
