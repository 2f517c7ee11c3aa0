package io.awscsi.ebs.cloud;

/** An availability zone of the region as DescribeAvailabilityZones lists it: name (us-east-1a) and id (use1-az1). */
public record Zone(String name, String id) {

  public Zone {
    name = name == null ? "" : name;
    id = id == null ? "" : id;
  }
}
