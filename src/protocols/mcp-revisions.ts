/**
 * The MCP protocol revisions /mcp negotiates, newest first: the official SDK's, so an SDK upgrade
 * changes them. Here (not in src/mcp) so the OpenAPI document in common names them too.
 */
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

export const MCP_PROTOCOL_REVISIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;
