from cardgen.cli.main import run

if __name__ == "__main__":      # not again in a worker process (they start by importing the main module)
    run()
