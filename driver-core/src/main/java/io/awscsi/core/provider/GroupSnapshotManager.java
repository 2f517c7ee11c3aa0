package io.awscsi.core.provider;

import java.util.List;
import java.util.Map;

/**
 * The GroupController service's CREATE_DELETE_GET_VOLUME_GROUP_SNAPSHOT. {@code snapshotIds} of delete and get is
 * what the CO believes the members are; empty when it did not say. A provider that can see the members compares them
 * and answers a mismatch with InvalidArgument, as the spec asks of a plugin able to detect one.
 */
public interface GroupSnapshotManager {

  /**
   * Creates the group, or returns the one already made under this name with the same members; a group of that name
   * with other members is AlreadyExists.
   */
  GroupSnapshot createGroupSnapshot(GroupSnapshotRequest request);

  /** Deletes every member snapshot; already gone is success. */
  void deleteGroupSnapshot(String groupSnapshotId, List<String> snapshotIds, Map<String, String> secrets);

  /** The group as it is now; NotFound when it does not exist. */
  GroupSnapshot getGroupSnapshot(String groupSnapshotId, List<String> snapshotIds, Map<String, String> secrets);
}
