/** The OpenAPI 3.1 document of the API, made from the route table and the wire records its routes declare. */
package dev.hearth.server.openapi;
