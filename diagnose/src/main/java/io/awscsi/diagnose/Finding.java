package io.awscsi.diagnose;

import io.awscsi.diagnose.Diagnosis.Verdict;
import io.awscsi.diagnose.Knowledge.Actor;
import io.awscsi.diagnose.Knowledge.Stage;

/** A finding before it is worded: what is wrong where, and what was seen. */
record Finding(Verdict verdict, Stage stage, Actor actor, String node, String error, String summary) {

  static Finding healthy(String summary) {
    return new Finding(Verdict.HEALTHY, null, null, "", "", summary);
  }

  int rank() {
    return switch (verdict) {
      case FAILED -> 0;
      case STUCK -> 1;
      case PROGRESSING -> 2;
      case HEALTHY -> 3;
      case UNKNOWN -> 4;
    };
  }
}
