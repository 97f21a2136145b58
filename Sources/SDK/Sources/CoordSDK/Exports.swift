@_exported import CCoordABI
