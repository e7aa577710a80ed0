// Package mcpconfig is the language of MCP server configuration: where it
// is found ([Loader.Sources]: the .indusvx/mcp.json family and a project's
// .mcp.json), how a file is parsed ([Parse]: the servers or mcpServers
// object or array, ${VAR} and ${VAR:-default} expanded, tool filters,
// timeouts), and how several files merge into one list of [Server] rows
// ([Load]). A row that cannot be used becomes a [Warning] naming the file
// and the server, and the others still load. Package bridge mounts the
// rows.
package mcpconfig
