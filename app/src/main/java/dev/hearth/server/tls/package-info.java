/**
 * HTTPS for the API and the computer router: PEM certificates and keys read into Jetty's
 * {@code SslContextFactory} and reloaded when the files change, the self-signed CA of
 * {@code hearth serve --tls-self-signed}, and the redirect that plain HTTP gets instead of an answer.
 */
package dev.hearth.server.tls;
