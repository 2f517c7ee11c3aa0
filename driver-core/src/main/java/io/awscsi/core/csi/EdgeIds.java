package io.awscsi.core.csi;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.json.JsonQuoting;
import io.awscsi.core.provider.IdSyntax;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The one check of request ids against the driver's {@link IdSyntax}, made where a request enters: an id that cannot
 * name anything of this driver is answered here, before any provider part (and so any path, device, command or cloud
 * filter) sees it. Lookups answer NOT_FOUND; unpublish and delete calls, for which "already gone" is success, are
 * told to answer OK.
 */
final class EdgeIds {

  private static final Logger LOG = LogManager.getLogger(EdgeIds.class);

  private final IdSyntax syntax;

  EdgeIds(IdSyntax syntax) {
    this.syntax = syntax;
  }

  /** A volume id that must exist: NOT_FOUND when it cannot be one of this driver's. */
  String volume(String id, String field) {
    syntax.volumeIdProblem(id).ifPresent(problem -> {
      throw DriverException.notFound(field + ": volume " + quoted(id) + " does not exist: " + problem);
    });
    return id;
  }

  /** A snapshot id that must exist: NOT_FOUND when it cannot be one of this driver's. */
  String snapshot(String id, String field) {
    syntax.snapshotIdProblem(id).ifPresent(problem -> {
      throw DriverException.notFound(field + ": snapshot " + quoted(id) + " does not exist: " + problem);
    });
    return id;
  }

  /** A group snapshot id that must exist: NOT_FOUND when it cannot be one of this driver's. */
  String groupSnapshot(String id, String field) {
    syntax.groupSnapshotIdProblem(id).ifPresent(problem -> {
      throw DriverException.notFound(field + ": group snapshot " + quoted(id) + " does not exist: " + problem);
    });
    return id;
  }

  /** A node id that must exist: NOT_FOUND when it cannot be one of this driver's. */
  String node(String id, String field) {
    syntax.nodeIdProblem(id).ifPresent(problem -> {
      throw DriverException.notFound(field + ": node " + quoted(id) + " does not exist: " + problem);
    });
    return id;
  }

  /** Whether a volume id names nothing this driver could have made; logged as "already gone" for {@code rpc}. */
  boolean volumeCannotExist(String id, String rpc) {
    return cannotExist(syntax.volumeIdProblem(id), "volume", id, rpc);
  }

  boolean snapshotCannotExist(String id, String rpc) {
    return cannotExist(syntax.snapshotIdProblem(id), "snapshot", id, rpc);
  }

  boolean groupSnapshotCannotExist(String id, String rpc) {
    return cannotExist(syntax.groupSnapshotIdProblem(id), "group snapshot", id, rpc);
  }

  boolean nodeCannotExist(String id, String rpc) {
    return cannotExist(syntax.nodeIdProblem(id), "node", id, rpc);
  }

  private static boolean cannotExist(Optional<String> problem, String what, String id, String rpc) {
    problem.ifPresent(p -> LOG.info("{}: {} {} cannot exist ({}); nothing to do", rpc, what, quoted(id), p));
    return problem.isPresent();
  }

  /** The id as a JSON string, so a hostile id cannot forge log or message text. */
  static String quoted(String id) {
    StringBuilder b = new StringBuilder(id.length() + 2);
    JsonQuoting.quote(b, id);
    return b.toString();
  }
}
