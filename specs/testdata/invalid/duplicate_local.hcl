locals {
  m = 4
}

locals {
  m = 5
}
