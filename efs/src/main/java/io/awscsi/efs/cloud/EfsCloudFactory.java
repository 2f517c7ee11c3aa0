package io.awscsi.efs.cloud;

import io.awscsi.aws.call.AwsCallRunner;
import io.awscsi.aws.call.AwsRetryPolicy;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.Reachability;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import software.amazon.awssdk.services.efs.EfsClient;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;

/**
 * The EFS clouds the controller talks to: the driver's own account, and one per cross-account role named in a
 * provisioner secret ({@code awsRoleArn}, optional {@code externalId}). A role's client is built once and kept, and
 * its credentials are refreshed by STS before they expire, so a burst of CreateVolume calls does not make a burst of
 * AssumeRole calls.
 */
public final class EfsCloudFactory implements AutoCloseable {

  private static final Logger LOG = LogManager.getLogger(EfsCloudFactory.class);
  static final String ROLE_SESSION_NAME = "efs-csi-driver";

  private record Role(String roleArn, String externalId) {
    @Override
    public String toString() {
      return "Role[***]";
    }
  }

  private record RoleCloud(EfsCloud cloud, EfsClient client, AutoCloseable credentials) {}

  private final EfsCloud defaultCloud;
  private final EfsClientFactory clients;
  private final Supplier<StsClient> sts;
  private final AwsCallRunner calls;
  private final Map<Role, RoleCloud> roles = new ConcurrentHashMap<>();

  /**
   * @param defaultClient the client of the driver's own account (owned by the caller)
   * @param clients builds clients for assumed roles (closed by this factory)
   * @param sts the STS client for AssumeRole, asked for only when a secret names a role
   */
  public EfsCloudFactory(EfsClient defaultClient, EfsClientFactory clients, Supplier<StsClient> sts,
      AwsCallRunner calls) {
    this.defaultCloud = new SdkEfsCloud(defaultClient, calls);
    this.clients = clients;
    this.sts = sts;
    this.calls = calls;
  }

  /**
   * The factory the launcher builds: the driver's own client, a builder of clients for assumed roles, STS asked for
   * lazily, and the default per-API retries.
   *
   * @param defaultClient built with the SDK's retries off (the {@link AwsCallRunner} retries per API)
   */
  public static EfsCloudFactory create(EfsClient defaultClient, EfsClientFactory roleClients,
      Supplier<StsClient> sts, MetricsRegistry metrics) {
    return new EfsCloudFactory(defaultClient, roleClients, sts,
        SdkEfsCloud.callRunner(metrics, AwsRetryPolicy.EFS_DEFAULT));
  }

  /** Whether EFS answered the driver's latest calls, in any account. */
  public Reachability reachability() {
    return calls.reachability();
  }

  public EfsCloud defaultCloud() {
    return defaultCloud;
  }

  /** The cloud of the account behind the role; {@code externalId} may be empty. */
  public EfsCloud forRole(String roleArn, String externalId) {
    return roles.computeIfAbsent(new Role(roleArn, externalId), this::assume).cloud();
  }

  private RoleCloud assume(Role role) {
    // Neither the role nor the external id is logged: both come from a Kubernetes secret.
    LOG.info("Building an EFS client for the role of a provisioner secret's awsRoleArn (externalId {})",
        role.externalId().isEmpty() ? "not set" : "set");
    StsAssumeRoleCredentialsProvider credentials = StsAssumeRoleCredentialsProvider.builder()
        .stsClient(sts.get())
        .refreshRequest(r -> {
          r.roleArn(role.roleArn()).roleSessionName(ROLE_SESSION_NAME);
          if (!role.externalId().isEmpty()) {
            r.externalId(role.externalId());
          }
        })
        .asyncCredentialUpdateEnabled(false)
        .build();
    EfsClient client = clients.create(credentials);
    return new RoleCloud(new SdkEfsCloud(client, calls), client, credentials);
  }

  @Override
  public void close() {
    roles.values().forEach(r -> {
      r.client().close();
      try {
        r.credentials().close();
      } catch (Exception e) {
        LOG.warn("Closing role credentials failed: {}", e.getMessage());
      }
    });
    roles.clear();
  }
}
