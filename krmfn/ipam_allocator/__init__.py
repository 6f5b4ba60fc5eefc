"""ipam-allocator: IPClaim and VLANClaim status from an address space and a ledger kept in git."""
