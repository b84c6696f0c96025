catalog gpus
