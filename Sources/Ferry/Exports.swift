// `import Ferry` is all a user writes: the lower public modules come with it.
@_exported import FerrySession
@_exported import FerryEngine
@_exported import FerryTLS
@_exported import FerryReachability
@_exported import FerryWire
@_exported import FerryIO
@_exported import FerryBase
@_exported import HTTPTypes
