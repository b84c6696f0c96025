calibrate show p5-efa-nccltests
