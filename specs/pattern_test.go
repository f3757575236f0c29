package specs
