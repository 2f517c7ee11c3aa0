package io.awscsi.realism.ec2;

/**
 * What a ClientToken was first used for: the request (as a parameter fingerprint), the resource it created and the
 * answer, replayed when the same token comes back with the same parameters.
 */
public record ClientTokenRecord(String fingerprint, String resourceId, String responseBody) {}
