from airline_agent.cli import main

main()
