"""Everything that talks to LED level counters: links (serial, BLE), discovery, fault injection.

The submodules are imported on demand so that `import companion.devices` stays cheap
and pulls in neither bleak nor Bumble nor pyserial.
"""
