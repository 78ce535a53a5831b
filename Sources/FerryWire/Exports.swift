// ErrorKind, the type of every FerryWire error kind, comes with FerryWire.
@_exported import FerryBase
