package io.awscsi.aws.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutpostArnTest {

  @Test
  void parsesTheImdsOutpostArn() {
    assertThat(OutpostArn.parse("arn:aws:outposts:us-west-2:111122223333:outpost/op-0abcdef1234567890\n"))
        .contains(new OutpostArn("aws", "us-west-2", "111122223333", "op-0abcdef1234567890"));
  }

  @Test
  void printsBackTheArn() {
    String arn = "arn:aws-us-gov:outposts:us-gov-west-1:111122223333:outpost/op-1";
    assertThat(OutpostArn.parse(arn).orElseThrow()).hasToString(arn);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "op-0abcdef1234567890",
        "arn:aws:ec2:us-west-2:111122223333:instance/i-0abc",
        "arn:aws:outposts:us-west-2:111122223333:site/os-1",
        "arn:aws:outposts:us-west-2:outpost/op-1",
        "arn:aws:outposts:us-west-2:111122223333:outpost/op-1\u001b[2J",
        "arn:aws:outposts:us-west-2:111122223333:outpost/op-..",
        "arn:aws:outposts:../etc:111122223333:outpost/op-1",
        "arn:aws:outposts:us-west-2:1111:outpost/op-1",
        "arn:evil:outposts:us-west-2:111122223333:outpost/op-1",
      })
  void anythingElseIsNotAnOutpost(String text) {
    assertThat(OutpostArn.parse(text)).isEmpty();
  }
}
