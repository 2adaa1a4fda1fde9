from cardgen.cli.main import main

main()
