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
      Pattern.compile("arn:([^:]+):outposts:([^:]+):([^:]+):outpost/([^:/]+)");

  public OutpostArn {
    Objects.requireNonNull(partition, "partition");
    Objects.requireNonNull(region, "region");
    Objects.requireNonNull(accountId, "accountId");
    Objects.requireNonNull(outpostId, "outpostId");
  }

  /** Empty when {@code arn} is not an Outpost ARN (upstream then treats the node as not on an Outpost too). */
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
