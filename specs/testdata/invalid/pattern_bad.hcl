pattern "too_wide" {
  matrix    = [[0, 0], [0, 1]]
  block     = [2048, 1]
  warp_size = 0
}

pattern "negative" {
  matrix = [[0, 0], [0, -1]]
  block  = [32, 1]
  offset = [0, 3]
}

pattern "bad_matrix" {
  matrix     = [[0, 0]]
  block      = [32, 1]
  iterations = 2000000
}
