-- host:port of the node's computer router, for other nodes' routers to relay requests for its computers.
ALTER TABLE nodes ADD COLUMN router_address TEXT NOT NULL DEFAULT '';
