echo "initialised skill $1"
