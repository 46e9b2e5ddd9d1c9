/**
 * OCI images: pulled with skopeo and unpacked with umoci once per digest (the built-in
 * hearth/busybox is made here from busybox-static), and a workspace's pulled images with their
 * routes.
 */
package dev.hearth.server.images;
