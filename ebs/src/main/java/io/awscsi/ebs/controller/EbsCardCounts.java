package io.awscsi.ebs.controller;

import io.awscsi.aws.call.AwsCallException;
import io.awscsi.aws.call.CallDeadline;
import io.awscsi.ebs.cloud.EbsCloud;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * How many EBS cards an instance type has, as upstream's {@code getCardCount}: EC2's
 * {@code EbsInfo.MaximumEbsCards} from DescribeInstanceTypes, remembered per type for {@link #REMEMBERED} (a type's
 * cards never change; the hour bounds what a wrong answer costs). When the call fails (no permission, throttled,
 * EC2 unreachable) the static table of multi-card types below answers and is remembered the same way, so a failing
 * DescribeInstanceTypes costs one call per type and hour, not one per attach.
 */
final class EbsCardCounts {

  private static final Logger LOG = LogManager.getLogger(EbsCardCounts.class);

  /** As upstream's expiring cache of card counts. */
  static final Duration REMEMBERED = Duration.ofHours(1);

  /**
   * The types with more than one EBS card, all with two (upstream's {@code ebsCardCounts}, v1.64.0, from
   * DescribeInstanceTypes).
   */
  static final Set<String> TWO_CARD_TYPES = Set.of(
      "c8gb.48xlarge", "c8gb.metal-48xl", "c8gn.48xlarge", "c8gn.metal-48xl", "c8ib.96xlarge", "c8ib.metal-96xl",
      "c8in.96xlarge", "c8in.metal-96xl", "g7.48xlarge", "m8gb.48xlarge", "m8gb.metal-48xl", "m8gn.48xlarge",
      "m8gn.metal-48xl", "m8ib.96xlarge", "m8ib.metal-96xl", "m8idb.96xlarge", "m8idb.metal-96xl", "m8idn.96xlarge",
      "m8idn.metal-96xl", "m8in.96xlarge", "m8in.metal-96xl", "r8gb.48xlarge", "r8gb.metal-48xl", "r8gn.48xlarge",
      "r8gn.metal-48xl", "r8ib.96xlarge", "r8ib.metal-96xl", "r8idb.96xlarge", "r8idb.metal-96xl", "r8idn.96xlarge",
      "r8idn.metal-96xl", "r8in.96xlarge", "r8in.metal-96xl");

  private record Known(int cards, Instant until) {}

  private final EbsCloud ec2;
  private final InstantSource clock;
  private final Map<String, Known> byType = new ConcurrentHashMap<>();

  EbsCardCounts(EbsCloud ec2, InstantSource clock) {
    this.ec2 = ec2;
    this.clock = clock;
  }

  /** The static table's answer: 2 for the listed types, else 1. */
  static int fromTable(String instanceType) {
    return TWO_CARD_TYPES.contains(instanceType) ? 2 : 1;
  }

  /** The type's EBS cards (at least 1); an empty or unknown type has one. */
  int cardsOf(String instanceType, CallDeadline deadline) {
    if (instanceType == null || instanceType.isEmpty()) {
      return 1;
    }
    Instant now = clock.instant();
    Known known = byType.get(instanceType);
    if (known != null && now.isBefore(known.until())) {
      return known.cards();
    }
    int cards;
    try {
      cards = Math.max(1, ec2.maximumEbsCards(instanceType, deadline).orElse(1));
    } catch (AwsCallException e) {
      cards = fromTable(instanceType);
      LOG.warn("DescribeInstanceTypes {} failed ({}); using the static table: {} EBS card(s)", instanceType,
          e.getMessage(), cards);
    }
    byType.put(instanceType, new Known(cards, now.plus(REMEMBERED)));
    return cards;
  }
}
