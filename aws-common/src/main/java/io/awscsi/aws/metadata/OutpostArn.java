package io.awscsi.aws.metadata;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Outpost an instance runs on, from the IMDS {@code outpost-arn}: {@code
 * arn:<partition>:outposts:<region>:<account>:outpost/<outpost-id>}.
 */
public record OutpostArn(String partition, String region, String accountId, String outpostId) {

  private static final Pattern ARN =
      Pattern.compile("arn:(aws[a-z-]{0,16}):outposts:([a-z]{2}(?:-[a-z]{1,16}){1,3}-[0-9]{1,2}):([0-9]{12})"
          + ":outpost/(op-[0-9a-z]{1,32})");

  public OutpostArn {
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(accountId, "accountId");
    Objects.requireNonNull(outpostId, "outpostId");
  }

  /**
   * Each part is checked as strictly as a request field (the Outpost id becomes topology): a partition, a region, a
   * 12-digit account, an {@code op-} id.
   *
   * <p>Empty when {@code arn} is not an Outpost ARN (upstream then treats the node as not on an Outpost too).
   */
  public static Optional<OutpostArn> parse(String arn) {
    if (arn == null) {
      return Optional.empty();
    }
    Matcher m = ARN.matcher(arn.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    return Optional.of(new OutpostArn(m.group(1), m.group(2), m.group(3), m.group(4)));
  }

  @Override
  public String toString() {
    return "arn:" + partition + ":outposts:" + region + ":" + accountId + ":outpost/" + outpostId;
  }
}
